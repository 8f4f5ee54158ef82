package pluginhost

import (
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/transport/httpwire"
)

// ErrNotRunning matches (errors.Is) every UnavailableError.
var ErrNotRunning = errors.New("plugin not running")

// UnavailableError is what calls and requests get while the instance has no
// running process: it is restarting, stopping or stopped.
type UnavailableError struct {
	// Kind is pluginv1.KindVM or pluginv1.KindModule.
	Kind string
	// Name is the chain's primary alias or the module name.
	Name string
	// State is the instance's state when the call was refused; Running
	// means it is stopping.
	State State
	// Reason says why the process is not running, e.g. "plugin exited:
	// exit status 3".
	Reason string
}

// Error says what is unavailable and why, e.g. "chain C is restarting:
// plugin exited: signal: killed".
func (e *UnavailableError) Error() string {
	what := "module"
	if e.Kind == pluginv1.KindVM {
		what = "chain"
	}
	switch {
	case e.State == Stopped && e.Reason != "":
		return fmt.Sprintf("%s %s is stopped: %s", what, e.Name, e.Reason)
	case e.State == Stopped:
		return fmt.Sprintf("%s %s is stopped", what, e.Name)
	case e.State == Running:
		// Only a stopping instance refuses calls while running.
		return fmt.Sprintf("%s %s is stopping", what, e.Name)
	case e.Reason != "":
		return fmt.Sprintf("%s %s is restarting: %s", what, e.Name, e.Reason)
	default:
		return fmt.Sprintf("%s %s is starting", what, e.Name)
	}
}

// Unwrap returns ErrNotRunning and httpwire.ErrPluginUnavailable, so the
// error matches both under errors.Is.
func (e *UnavailableError) Unwrap() []error {
	return []error{ErrNotRunning, httpwire.ErrPluginUnavailable}
}

// GRPCStatus reports codes.Unavailable, so the error maps like a dead
// connection wherever it travels on.
func (e *UnavailableError) GRPCStatus() *status.Status {
	return status.New(codes.Unavailable, e.Error())
}

// fromPlugin turns an error of a call to the plugin into a Go error that
// keeps the plugin's message and matches host.ErrNotFound for NotFound.
func fromPlugin(err error) error {
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	if st.Code() == codes.NotFound {
		return fmt.Errorf("%s: %w", st.Message(), host.ErrNotFound)
	}
	return err
}
