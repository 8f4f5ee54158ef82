package pluginv1

// Flow control of ServeHTTPChannel (see the call in plugin.proto). Both
// sides must agree on these, so they are part of the protocol.
const (
	// HTTPChannelWindow is how many bytes of one response the plugin may
	// send before the host grants credit.
	HTTPChannelWindow = 256 << 10
	// HTTPChannelMinCost is the least a response message counts against
	// the window, so that a response of many tiny messages is bounded too.
	HTTPChannelMinCost = 512
)

// HTTPChannelCost is what a response message with a body of n bytes counts
// against the window.
func HTTPChannelCost(n int) int { return max(n, HTTPChannelMinCost) }
