package pluginhost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/transport/route"
)

// DefaultDescribeTimeout bounds `<binary> describe` when ctx has no deadline.
const DefaultDescribeTimeout = 5 * time.Second

// maxDescribeOutput caps what Describe reads from a binary's stdout.
const maxDescribeOutput = 1 << 20

// Describe runs `<path> describe` and returns the Description it prints. It
// checks that the binary is a chainhost plugin of a known kind that speaks a
// protocol version this host speaks. Without a deadline on ctx it gives the
// binary DefaultDescribeTimeout to answer.
func Describe(ctx context.Context, path string) (pluginv1.Description, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultDescribeTimeout)
		defer cancel()
	}
	out, err := runDescribe(ctx, path)
	if err != nil {
		return pluginv1.Description{}, fmt.Errorf("describe plugin %s: %w", path, err)
	}
	d, err := parseDescription(out)
	if err != nil {
		return pluginv1.Description{}, fmt.Errorf("describe plugin %s: %w", path, err)
	}
	return d, nil
}

// runDescribe runs the binary and returns its stdout, or an error that says
// how it failed: not runnable, no answer in time, or a failed exit.
func runDescribe(ctx context.Context, path string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, path, pluginv1.DescribeCommand)
	var stdout, stderr limitedBuffer
	stdout.max, stderr.max = maxDescribeOutput, 64<<10
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// A grandchild holding the pipes must not keep Describe waiting.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			return nil, fmt.Errorf("no answer to %q before the deadline: %w", pluginv1.DescribeCommand, ctxErr)
		}
		return nil, ctxErr
	}
	if err != nil {
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			msg := firstLine(stderr.Bytes())
			if msg == "" {
				msg = firstLine(stdout.Bytes())
			}
			if msg != "" {
				return nil, fmt.Errorf("not a chainhost plugin: %q exited with %s: %s", pluginv1.DescribeCommand, exitErr.ProcessState, msg)
			}
			return nil, fmt.Errorf("not a chainhost plugin: %q exited with %s", pluginv1.DescribeCommand, exitErr.ProcessState)
		}
		if errors.Is(err, fs.ErrPermission) {
			return nil, fmt.Errorf("not executable: %w", err)
		}
		return nil, fmt.Errorf("run: %w", err)
	}
	return stdout.Bytes(), nil
}

// parseDescription decodes and checks the JSON a plugin printed.
func parseDescription(out []byte) (pluginv1.Description, error) {
	var d pluginv1.Description
	// Unknown fields are allowed: a newer SDK may describe more.
	dec := json.NewDecoder(bytes.NewReader(out))
	if err := dec.Decode(&d); err != nil {
		line := firstLine(out)
		if line == "" {
			return d, errors.New("not a chainhost plugin: it printed nothing")
		}
		return d, fmt.Errorf("not a chainhost plugin: it printed %q", line)
	}
	if dec.More() {
		return d, fmt.Errorf("not a chainhost plugin: output continues after the description: %q", firstLine(out))
	}
	if d.Kind != pluginv1.KindVM && d.Kind != pluginv1.KindModule {
		return d, fmt.Errorf("not a chainhost plugin: kind %q, want %q or %q", d.Kind, pluginv1.KindVM, pluginv1.KindModule)
	}
	if d.Name == "" {
		return d, errors.New("not a chainhost plugin: the description has no name")
	}
	for _, p := range slices.Concat(d.Prefixes, d.MessageArrayPrefixes) {
		if d.Kind != pluginv1.KindModule {
			return d, fmt.Errorf("plugin %s: a %s declares no path prefixes", d.Name, d.Kind)
		}
		if err := route.CheckPrefix(p); err != nil {
			return d, fmt.Errorf("plugin %s: %w", d.Name, err)
		}
	}
	supported := pluginv1.SupportedProtocolVersions()
	if !slices.ContainsFunc(d.Protocols, func(v int) bool { return slices.Contains(supported, v) }) {
		return d, fmt.Errorf("plugin %s speaks protocol versions %v, this host speaks %v", d.Name, d.Protocols, supported)
	}
	return d, nil
}

// firstLine returns the first non-blank line of b, trimmed and cut to 200
// bytes.
func firstLine(b []byte) string {
	for line := range strings.SplitSeq(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if len(line) > 200 {
			line = line[:200] + "..."
		}
		return line
	}
	return ""
}

// limitedBuffer keeps the first max bytes written to it and drops the rest,
// so a chatty binary cannot exhaust memory.
type limitedBuffer struct {
	buf bytes.Buffer
	max int
}

// Write implements io.Writer; it never fails.
func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// Bytes returns what was kept.
func (l *limitedBuffer) Bytes() []byte { return l.buf.Bytes() }
