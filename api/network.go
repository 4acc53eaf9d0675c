package api

// Event types of a session's network (docs/network.md).
const (
	// EventPortListening announces a TCP port that started listening in
	// the session's network, with its preview URL.
	EventPortListening = "port.listening"
	// EventPortClosed says a port announced before no longer listens.
	EventPortClosed = "port.closed"
	// EventNetworkAwaitingApproval asks whether a command of the session
	// may reach a host that no rule allows, through the session's proxy;
	// it is decided like a call, on
	// POST /v1/sessions/{sid}/calls/{tool_use_id}/decision with the
	// event's tool_use_id (net_...).
	EventNetworkAwaitingApproval = "network.awaiting_approval"
)

// Port is a TCP port listening in a session's network.
type Port struct {
	// Port is the port number.
	Port int `json:"port"`
	// Address is the address it listens on inside (127.0.0.1, 0.0.0.0, ::).
	Address string `json:"address"`
	// URL is its preview: the path under toolgate's address that proxies
	// HTTP and WebSocket requests to it.
	URL string `json:"url"`
}

// PortList is the body of GET /v1/sessions/{sid}/ports.
type PortList struct {
	Ports []Port `json:"ports"`
}

// NetworkPreview is what a network approval is about: the host and port a
// command asked toolgate's proxy for.
type NetworkPreview struct {
	Host string `json:"host"`
	Port int    `json:"port"`
	// Rule is the allow rule that "remember" adds: network(domain:host).
	Rule string `json:"rule"`
}
