package pluginhost

// State is the lifecycle state of an instance.
type State int

// States of an instance.
const (
	// Starting: a process is being started and initialized.
	Starting State = iota
	// Running: the process serves requests.
	Running
	// Down: the process exited and a restart is pending.
	Down
	// Stopped: Stop was called; the instance will not run again.
	Stopped
)

// String returns the lower-case name used in health JSON.
func (s State) String() string {
	switch s {
	case Starting:
		return "starting"
	case Running:
		return "running"
	case Down:
		return "down"
	case Stopped:
		return "stopped"
	default:
		return "unknown"
	}
}
