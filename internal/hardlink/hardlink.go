// Package hardlink tells whether a file has other names. A hard link put in
// the sandbox folder (by an approved exec, or any process of the user's)
// is a name inside it for a file outside it: os.Root, which follows the path,
// cannot see that, so the tools that read and write the folder refuse a file
// with more than one name.
package hardlink

import "io/fs"

// Extra reports whether info, a regular file's, says the file has more
// than one name.
func Extra(info fs.FileInfo) bool {
	return info.Mode().IsRegular() && links(info) > 1
}
