package pluginhost

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chainhost/chainhost/core/logging"
	"github.com/chainhost/chainhost/proto/pluginv1"
	"github.com/chainhost/chainhost/sdk/host"
	"github.com/chainhost/chainhost/transport/grpcplugin"
	"github.com/chainhost/chainhost/transport/host/unixpool"
)

// process is one plugin subprocess: its go-plugin client, its Plugin client
// and the host-services server on its broker.
type process struct {
	client     *plugin.Client
	cmd        *exec.Cmd
	rpc        pluginv1.PluginClient
	pid        int
	handlers   []string
	internal   []string
	indexKinds []string
	// logLevel is the level sent in Initialize.
	logLevel string
	// since is when the process was marked running.
	since time.Time
	// services serves the host services on the broker; nil until
	// dispensed.
	services *grpcplugin.HostServer
	// data reaches the process's data socket; nil when it serves none.
	data *unixpool.Pool

	teardownOnce sync.Once
}

// exited reports whether the subprocess has ended.
func (p *process) exited() bool { return p.client.Exited() }

// exitStatus describes how the subprocess ended. Call it after exited
// reported true: go-plugin sets that flag after cmd.Wait returned.
func (p *process) exitStatus() string {
	if p.cmd.ProcessState == nil {
		return "unknown exit status"
	}
	return p.cmd.ProcessState.String()
}

// teardown kills the subprocess, waits for it and for go-plugin's goroutines
// to end, then stops the host services. Safe to call more than once.
func (p *process) teardown() {
	p.teardownOnce.Do(func() {
		// Kill closes the broker and blocks until the process has exited.
		p.client.Kill()
		if p.data != nil {
			p.data.Close()
		}
		if p.services != nil {
			p.services.Stop()
		}
	})
}

// launchConfig is what launch needs from the instance.
type launchConfig struct {
	// path is the binary as installed, the process's argv[0]; exec is
	// the file run.
	path, exec string
	pin        []byte
	logger     hclog.Logger
	services   host.Services
	// listener, when set, is passed as the process's first inherited file
	// (httpserve.FirstInheritedFD).
	listener *os.File
	// data, when set, is passed as the next inherited file: the data
	// socket.
	data *os.File
	// onUnavailable is called when a call to the plugin fails with
	// codes.Unavailable: a hint that the process may have died.
	onUnavailable func()
}

// launch starts the binary, completes the go-plugin handshake and dispenses
// the Plugin client, with the host services served on the broker. It does
// not call Initialize. On error nothing is left running.
func launch(cfg launchConfig) (*process, error) {
	if cfg.pin != nil {
		if err := CheckPin(cfg.exec, cfg.path, cfg.pin); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(cfg.exec)
	cmd.Args[0] = cfg.path
	setProcAttr(cmd)
	for _, f := range []*os.File{cfg.listener, cfg.data} {
		if f != nil {
			cmd.ExtraFiles = append(cmd.ExtraFiles, f)
		}
	}
	p := &process{cmd: cmd}
	versioned := make(map[int]plugin.PluginSet)
	for _, v := range pluginv1.SupportedProtocolVersions() {
		versioned[v] = plugin.PluginSet{pluginv1.PluginName: &grpcplugin.Plugin{}}
	}
	clientCfg := &plugin.ClientConfig{
		HandshakeConfig:  grpcplugin.Handshake(),
		VersionedPlugins: versioned,
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
		StartTimeout:     StartTimeout,
		Managed:          false,
		GRPCDialOptions: append(grpcplugin.DialOptions(),
			grpc.WithChainUnaryInterceptor(unaryHint(cfg.onUnavailable)),
			grpc.WithChainStreamInterceptor(streamHint(cfg.onUnavailable)),
		),
	}
	if cfg.logger != nil {
		// What the process logs is bounded; the supervisor's own lines,
		// through cfg.logger, are not.
		limited := logging.Limited(cfg.logger, logging.PluginLines())
		clientCfg.Logger = limited
		// What the plugin prints to stdout or stderr outside its logger
		// (after go-plugin has taken the streams over) is logged too.
		stray := limited.StandardWriter(&hclog.StandardLoggerOptions{InferLevels: true, ForceLevel: hclog.Info})
		clientCfg.SyncStdout, clientCfg.SyncStderr = stray, stray
	}
	if cfg.pin != nil {
		clientCfg.SecureConfig = &plugin.SecureConfig{Checksum: cfg.pin, Hash: sha256.New()}
	}
	p.client = plugin.NewClient(clientCfg)

	proto, err := p.client.Client()
	if err != nil {
		p.teardown()
		return nil, fmt.Errorf("start %s: %w", cfg.path, err)
	}
	raw, err := proto.Dispense(pluginv1.PluginName)
	if err != nil {
		p.teardown()
		return nil, fmt.Errorf("dispense from %s: %w", cfg.path, err)
	}
	conn, ok := raw.(*grpcplugin.Client)
	if !ok {
		p.teardown()
		return nil, fmt.Errorf("dispense from %s: unexpected %T", cfg.path, raw)
	}
	p.rpc = conn.PluginClient
	p.services = grpcplugin.ServeHost(conn.Broker, cfg.services)
	// The process handle is set once Client returned: go-plugin started
	// the command under its lock.
	if cmd.Process != nil {
		p.pid = cmd.Process.Pid
	}
	return p, nil
}

// CheckPin compares the sha256 of file, the copy run of the
// binary installed at path, with pin (path's plugin-sha256), so that a
// mismatch says which checksum the binary has.
func CheckPin(file, path string, pin []byte) error {
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("check sha256 of %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("check sha256 of %s: %w", path, err)
	}
	if sum := h.Sum(nil); !bytes.Equal(sum, pin) {
		return fmt.Errorf("%w: %s has sha256 %x, pinned %x", ErrChecksumMismatch, path, sum, pin)
	}
	return nil
}

// ErrChecksumMismatch is returned by Start when the binary does not match
// its sha256 pin.
var ErrChecksumMismatch = errors.New("plugin binary does not match its sha256 pin")

// unaryHint calls hint when a unary call fails with codes.Unavailable.
func unaryHint(hint func()) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		err := invoker(ctx, method, req, reply, cc, opts...)
		if status.Code(err) == codes.Unavailable {
			hint()
		}
		return err
	}
}

// streamHint calls hint when a stream fails with codes.Unavailable.
func streamHint(hint func()) grpc.StreamClientInterceptor {
	return func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		cs, err := streamer(ctx, desc, cc, method, opts...)
		if err != nil {
			if status.Code(err) == codes.Unavailable {
				hint()
			}
			return nil, err
		}
		return &hintStream{ClientStream: cs, hint: hint}, nil
	}
}

// hintStream calls hint when a message fails with codes.Unavailable.
type hintStream struct {
	grpc.ClientStream
	hint func()
}

// SendMsg implements grpc.ClientStream.
func (s *hintStream) SendMsg(m any) error {
	err := s.ClientStream.SendMsg(m)
	if status.Code(err) == codes.Unavailable {
		s.hint()
	}
	return err
}

// RecvMsg implements grpc.ClientStream.
func (s *hintStream) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	if status.Code(err) == codes.Unavailable {
		s.hint()
	}
	return err
}
