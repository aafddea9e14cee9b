package manifests_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"log"

	"github.com/toolroute/toolroute/manifests"
)

// The built-in tools are files: a manifest (NAME.json) and its source
// (NAME.js) each, which a host loads before the user's tools.
func Example() {
	data, err := fs.ReadFile(manifests.FS, "get_current_time.json")
	if err != nil {
		log.Fatal(err)
	}
	var manifest struct {
		Name                string   `json:"name"`
		RequiredPermissions []string `json:"requiredPermissions"`
	}
	if err := json.Unmarshal(data, &manifest); err != nil {
		log.Fatal(err)
	}
	source, err := fs.ReadFile(manifests.FS, manifest.Name+".js")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(manifest.Name, manifest.RequiredPermissions, len(source) > 0)
	// Output:
	// get_current_time [read] true
}
