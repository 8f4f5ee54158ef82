package httpserve

import (
	"time"

	"github.com/chainhost/chainhost/proto/pluginv1"
)

// Listener is a listening socket the host passes to a plugin process: the
// socket's file descriptor in that process, its address and its limits.
type Listener struct {
	FD     uint32
	Addr   string
	Limits Limits
}

// FirstInheritedFD is the descriptor number of the first file a process
// inherits beyond stdin, stdout and stderr (os/exec's ExtraFiles[0]).
const FirstInheritedFD = 3

// ToProto is l as the InitializeRequest carries it.
func (l Listener) ToProto() *pluginv1.Listener {
	return &pluginv1.Listener{
		Fd:                     l.FD,
		Addr:                   l.Addr,
		MaxBodyBytes:           l.Limits.MaxBodyBytes,
		ReadHeaderTimeoutNanos: int64(l.Limits.ReadHeaderTimeout),
		ReadTimeoutNanos:       int64(l.Limits.ReadTimeout),
		WriteTimeoutNanos:      int64(l.Limits.WriteTimeout),
		IdleTimeoutNanos:       int64(l.Limits.IdleTimeout),
		TlsCertFile:            l.Limits.TLSCertFile,
		TlsKeyFile:             l.Limits.TLSKeyFile,
		CorsAllowedOrigins:     l.Limits.CORSAllowedOrigins,
		MaxWebsockets:          int32(l.Limits.MaxWebSockets),
	}
}

// ListenerFromProto is the Listener an InitializeRequest carries.
func ListenerFromProto(p *pluginv1.Listener) Listener {
	return Listener{
		FD:   p.GetFd(),
		Addr: p.GetAddr(),
		Limits: Limits{
			MaxBodyBytes:       p.GetMaxBodyBytes(),
			ReadHeaderTimeout:  time.Duration(p.GetReadHeaderTimeoutNanos()),
			ReadTimeout:        time.Duration(p.GetReadTimeoutNanos()),
			WriteTimeout:       time.Duration(p.GetWriteTimeoutNanos()),
			IdleTimeout:        time.Duration(p.GetIdleTimeoutNanos()),
			TLSCertFile:        p.GetTlsCertFile(),
			TLSKeyFile:         p.GetTlsKeyFile(),
			CORSAllowedOrigins: p.GetCorsAllowedOrigins(),
			MaxWebSockets:      int(p.GetMaxWebsockets()),
		},
	}
}
