// Package testwait says how long a test waits for what a right program
// does at once: a server to answer, a stopped call to end, a file to
// appear. Tests check behaviour, not speed, and a machine with a load of
// 30 on 2 cores takes 15 times as long over the same work, so a bound
// such as 5 or 10 seconds fails there while the code is right.
package testwait

import "time"

// Failsafe is how long a test waits for one thing before it fails: far
// past what a busy machine takes, and only there so that a program that
// went wrong fails its test rather than hanging the run until go test's
// own -timeout. (The JS tests' WAIT_MS, web/packages/toolroute/test/busy.js, is the same.)
const Failsafe = 2 * time.Minute
