package browser

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// peerUID is the user whose socket is at the far end of c, a loopback TCP
// connection: the kernel's table of IPv4 TCP sockets (/proc/net/tcp) holds
// the client's end, with its owner. ok is false when it is not there.
func peerUID(c net.Conn) (uid int, ok bool) {
	local, lok := c.LocalAddr().(*net.TCPAddr)
	remote, rok := c.RemoteAddr().(*net.TCPAddr)
	if !lok || !rok || local.IP.To4() == nil || remote.IP.To4() == nil {
		return 0, false
	}
	// The client's socket: its local address is our remote one.
	want := procAddr(remote) + " " + procAddr(local)
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid ...
		fields := strings.Fields(sc.Text())
		if len(fields) < 8 || fields[1]+" "+fields[2] != want {
			continue
		}
		n, err := strconv.Atoi(fields[7])
		return n, err == nil
	}
	return 0, false
}

// procAddr is an IPv4 address as /proc/net/tcp writes it: the address's
// four bytes read as a native 32-bit word, and the port, in hex.
func procAddr(a *net.TCPAddr) string {
	return fmt.Sprintf("%08X:%04X", binary.NativeEndian.Uint32(a.IP.To4()), a.Port)
}

// ownConnections says whether the proxy can tell who connects.
const ownConnections = true
