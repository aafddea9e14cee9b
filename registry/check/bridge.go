package check

import (
	"fmt"
	"slices"
	"strings"
)

// BridgeOp is a toolroute bridge operation a tool's code calls (op
// bridge_op): the operation (NAMESPACE.VERB), the calling tool and the
// permissions its manifest lists.
type BridgeOp struct {
	Op                  string   `json:"op"`
	Tool                string   `json:"tool"`
	RequiredPermissions []string `json:"required_permissions"`
}

// check refuses an operation whose namespace the tool's manifest does not
// list in requiredPermissions.
func (b BridgeOp) check() Answer {
	ns, _, _ := strings.Cut(b.Op, ".")
	if slices.Contains(b.RequiredPermissions, ns) {
		return Answer{}
	}
	return refuseAs("permission_denied", fmt.Sprintf("toolroute.%s: '%s' may not use it: only tools whose manifest lists %q in requiredPermissions may", ns, b.Tool, ns))
}
