package pluginv1

// The go-plugin handshake shared by the host and the SDK. The cookie only
// stops a plugin binary from being run by hand by mistake; it is no secret.
const (
	// MagicCookieKey is the environment variable go-plugin checks.
	MagicCookieKey = "CHAINHOST_PLUGIN"
	// MagicCookieValue is its expected value.
	MagicCookieValue = "5c1d3a4e-chainhost-plugin"
	// ProtocolVersion is the current plugin protocol version: 2 adds the
	// running plugin's Description to InitializeResponse.
	ProtocolVersion = 2
	// PreviousProtocolVersion is the version before it, which the host
	// still speaks (docs/plugins.md, "Protocol versions").
	PreviousProtocolVersion = 1
	// PluginName is the key of the one plugin in each go-plugin plugin set.
	PluginName = "chainhost"
	// DescribeCommand is the argument that makes a plugin binary print its
	// Description as JSON and exit, without a handshake.
	DescribeCommand = "describe"
)

// SupportedProtocolVersions lists the protocol versions the host speaks: the
// current one and the previous one. A plugin built with the SDK speaks the
// current one only.
func SupportedProtocolVersions() []int { return []int{ProtocolVersion, PreviousProtocolVersion} }

// Kinds of plugin.
const (
	KindVM     = "vm"
	KindModule = "module"
)

// ModuleHandler is the one handler name of a module: the host sends it
// every request under the module's path prefixes, with the whole path.
const ModuleHandler = "module"

// Kinds of ChainEvent.
const (
	ChainCurrent = "current"
	ChainStarted = "started"
	ChainStopped = "stopped"
)

// Description is what `<binary> describe` prints, as JSON.
type Description struct {
	// Kind is KindVM or KindModule.
	Kind string `json:"kind"`
	// VMID is the CB58 VM ID (VMs only).
	VMID string `json:"vmID,omitempty"`
	// Name is the VM or module name chains and config refer to.
	Name    string   `json:"name"`
	Version string   `json:"version"`
	Aliases []string `json:"aliases,omitempty"`
	// Protocols lists the plugin protocol versions the binary speaks.
	Protocols []int `json:"protocols"`
	// Prefixes are the URL path prefixes a module serves unless its config
	// names others ("/v1/chains"); modules only.
	Prefixes []string `json:"prefixes,omitempty"`
	// Home marks a module that serves pages for people: GET / on its
	// listener redirects to its first prefix (docs/modules.md,
	// "Routing"); modules only.
	Home bool `json:"home,omitempty"`
	// MessageArrayPrefixes are the path prefixes under which the module's
	// REST error bodies carry `message` as an array of strings (the
	// metrics v1 routes, "/v1"); the host writes the errors it answers for
	// the module there (413, 502, 503, 504) the same way. Modules only.
	MessageArrayPrefixes []string `json:"messageArrayPrefixes,omitempty"`
}
