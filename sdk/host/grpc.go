package host

import (
	"google.golang.org/grpc"

	"github.com/chainhost/chainhost/proto/pluginv1"
)

// RegisterServers serves the non-nil services of svc on s; calls to one that
// is nil answer codes.Unimplemented. The host calls it from the go-plugin
// broker's AcceptAndServe for each plugin instance.
func RegisterServers(s grpc.ServiceRegistrar, svc Services) {
	if svc.DB != nil {
		pluginv1.RegisterDatabaseServer(s, &databaseServer{db: svc.DB})
	}
	if svc.Index != nil {
		pluginv1.RegisterIndexServer(s, &indexServer{index: svc.Index})
	}
	if svc.Chains != nil {
		pluginv1.RegisterChainRegistryServer(s, &chainRegistryServer{chains: svc.Chains})
	}
	if svc.Calls != nil {
		pluginv1.RegisterChainCallsServer(s, &chainCallsServer{calls: svc.Calls})
	}
	if svc.SharedMemory != nil {
		pluginv1.RegisterSharedMemoryServer(s, &sharedMemoryServer{sm: svc.SharedMemory})
	}
}

// NewClients returns the host services served on conn, for the plugin side.
func NewClients(conn grpc.ClientConnInterface) Services {
	return Services{
		DB:     &databaseClient{c: pluginv1.NewDatabaseClient(conn)},
		Index:  &indexClient{c: pluginv1.NewIndexClient(conn)},
		Chains: &chainRegistryClient{c: pluginv1.NewChainRegistryClient(conn)},
		Calls:  &chainCallsClient{c: pluginv1.NewChainCallsClient(conn)},

		SharedMemory: &sharedMemoryClient{c: pluginv1.NewSharedMemoryClient(conn)},
	}
}
