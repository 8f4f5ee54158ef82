package plugintest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ProcStat is what tests read of a process from Linux's /proc/<pid>/stat.
type ProcStat struct {
	// State is the one-letter state: R, S, D, Z (zombie), X (dead), ...
	State byte
	// UserTicks and SystemTicks are the CPU time used, in clock ticks
	// (USER_HZ, 100 a second on Linux).
	UserTicks, SystemTicks uint64
}

// ReadProcStat parses /proc/<pid>/stat; the error wraps fs.ErrNotExist
// when no process pid exists.
func ReadProcStat(pid int) (ProcStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ProcStat{}, err
	}
	// The fields follow the command name in parentheses, which may itself
	// hold spaces and parentheses: state is the first, utime the 12th and
	// stime the 13th.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 || len(fields[0]) != 1 {
		return ProcStat{}, fmt.Errorf("/proc/%d/stat: unexpected %q", pid, s)
	}
	st := ProcStat{State: fields[0][0]}
	if st.UserTicks, err = strconv.ParseUint(fields[11], 10, 64); err != nil {
		return ProcStat{}, fmt.Errorf("/proc/%d/stat utime: %w", pid, err)
	}
	if st.SystemTicks, err = strconv.ParseUint(fields[12], 10, 64); err != nil {
		return ProcStat{}, fmt.Errorf("/proc/%d/stat stime: %w", pid, err)
	}
	return st, nil
}

// ProcessAlive reports whether process pid exists and is neither a zombie
// nor dead (an orphan's zombie stays until the system's init reaps it).
func ProcessAlive(pid int) bool {
	st, err := ReadProcStat(pid)
	return err == nil && st.State != 'Z' && st.State != 'X'
}
