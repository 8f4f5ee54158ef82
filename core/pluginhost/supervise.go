package pluginhost

import (
	"time"
)

const (
	// pollInterval is how often the supervisor checks whether the process
	// has exited.
	pollInterval = 50 * time.Millisecond
	// hintPoll and hintPolls: after a call failed with Unavailable, check
	// this often, this many times, so a crash is noticed at once.
	hintPoll  = 5 * time.Millisecond
	hintPolls = 60
)

// supervise watches the running process p, and whenever it exits marks the
// instance down, kills what is left of it and starts a new one with
// backoff. It returns when Stop is called, after every process is gone.
func (i *Instance) supervise(p *process) {
	defer close(i.done)
	defer i.finish()
	backoff := i.opts.RestartBackoff
	for {
		reason, exited := i.waitExit(p)
		if !exited {
			return
		}
		if time.Since(p.since) >= StableAfter {
			backoff = i.opts.RestartBackoff
		}
		i.markDown(p, reason)
		i.logger.Error("plugin process exited, restarting", "reason", reason, "pid", p.pid)
		p.teardown()
		downReason := reason
		for {
			if !i.sleep(backoff) {
				return
			}
			backoff = min(2*backoff, i.opts.MaxRestartBackoff)
			i.setState(Starting, downReason)
			np, err := i.startProcess(i.runCtx)
			if err != nil {
				if i.runCtx.Err() != nil {
					return
				}
				reason = downReason + "; restart failed: " + err.Error()
				i.logger.Error("plugin restart failed", "error", err, "next_attempt_in", backoff)
				i.setState(Down, reason)
				continue
			}
			i.setRunning(np, true)
			i.logger.Info("plugin restarted", "pid", np.pid)
			p = np
			break
		}
	}
}

// waitExit returns why p exited once it has, or exited false when the
// instance is stopping.
func (i *Instance) waitExit(p *process) (reason string, exited bool) {
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for {
		select {
		case <-i.runCtx.Done():
			return "", false
		case <-t.C:
		case <-i.hint:
			i.watchClosely(p)
		}
		if p.exited() {
			if i.isStopping() {
				return "", false
			}
			return "plugin exited: " + p.exitStatus(), true
		}
	}
}

// watchClosely polls p quickly for a short while, after a hint that it may
// be dying.
func (i *Instance) watchClosely(p *process) {
	t := time.NewTicker(hintPoll)
	defer t.Stop()
	for range hintPolls {
		if p.exited() {
			return
		}
		select {
		case <-i.runCtx.Done():
			return
		case <-t.C:
		}
	}
}

// markDown records that p exited.
func (i *Instance) markDown(p *process, reason string) {
	i.mu.Lock()
	if i.proc == p {
		i.proc = nil
	}
	i.lastExit = reason
	i.state, i.reason = Down, reason
	i.changedLocked()
	i.mu.Unlock()
	i.notify(Down, reason)
}

// sleep waits d, or returns false when the instance is stopping.
func (i *Instance) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-i.runCtx.Done():
		return false
	case <-t.C:
		return true
	}
}

// isStopping reports whether Stop was called.
func (i *Instance) isStopping() bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.stopping
}

// finish marks the instance stopped and kills its process, if any.
func (i *Instance) finish() {
	i.mu.Lock()
	p := i.proc
	i.proc = nil
	i.state, i.reason = Stopped, "stopped"
	i.changedLocked()
	i.mu.Unlock()
	if p != nil {
		p.teardown()
	}
	if i.data != nil {
		i.data.close()
	}
	i.notify(Stopped, "stopped")
}
