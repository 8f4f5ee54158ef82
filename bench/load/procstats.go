package load

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Proc is what one process of the node holds: the host or a plugin.
type Proc struct {
	Name    string // "host", or the plugin binary's name
	PID     int
	RSSKiB  int64
	Threads int
	FDs     int
	// Goroutines is the host's go_goroutines; -1 for a plugin, which does
	// not export it.
	Goroutines int
}

// Snapshot reads the host (pid) and its plugin processes from /proc, and
// the host's goroutines from its /ext/metrics at base; the plugins come
// sorted by name.
func Snapshot(base string, pid int) ([]Proc, error) {
	host, err := readProc(pid, "host")
	if err != nil {
		return nil, err
	}
	if host.Goroutines, err = hostGoroutines(base); err != nil {
		return nil, err
	}
	out := []Proc{host}
	var plugins []Proc
	for _, child := range children(pid) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", child))
		if err != nil {
			continue // gone since
		}
		argv0, _, _ := strings.Cut(string(b), "\x00")
		p, err := readProc(child, filepath.Base(argv0))
		if err != nil {
			continue
		}
		p.Goroutines = -1
		plugins = append(plugins, p)
	}
	slices.SortFunc(plugins, func(a, b Proc) int { return strings.Compare(a.Name, b.Name) })
	return append(out, plugins...), nil
}

// readProc reads a process's resident memory, threads and descriptors.
func readProc(pid int, name string) (Proc, error) {
	p := Proc{Name: name, PID: pid}
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return p, fmt.Errorf("read %s (%d): %w", name, pid, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, value, _ := strings.Cut(sc.Text(), ":")
		fields := strings.Fields(value)
		if len(fields) == 0 {
			continue
		}
		switch key {
		case "VmRSS":
			p.RSSKiB, _ = strconv.ParseInt(fields[0], 10, 64)
		case "Threads":
			p.Threads, _ = strconv.Atoi(fields[0])
		}
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return p, fmt.Errorf("read the descriptors of %s (%d): %w", name, pid, err)
	}
	p.FDs = len(fds)
	return p, nil
}

// children lists the direct children of pid.
func children(pid int) []int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, s := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(s); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// hostGoroutines reads go_goroutines from the host's /ext/metrics.
func hostGoroutines(base string) (int, error) {
	resp, err := http.Get(base + "/ext/metrics")
	if err != nil {
		return 0, fmt.Errorf("read /ext/metrics: %w", err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "go_goroutines "); ok {
			g, err := strconv.ParseFloat(v, 64)
			return int(g), err
		}
	}
	return 0, fmt.Errorf("no go_goroutines in /ext/metrics")
}
