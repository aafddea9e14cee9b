//go:build !linux

package browser

import "net"

// peerUID cannot tell a connection's user here.
func peerUID(net.Conn) (int, bool) { return 0, false }

// ownConnections says whether the proxy can tell who connects.
const ownConnections = false
