// Package statefile is the format of the state a Monitor saves through its
// Store: the minute history, the 24-hour windows, each app's recent checks
// and last state, the interval set at run time, the replay cache, the
// maintenance windows of the API and the ledger section.
//
// Decode reads a whole file into a State; it reads the current encoding
// (Version) and every older one still in the field, and refuses anything
// else, so that a file of a newer availmon is set aside, never misread. A
// reader of a state directory that runs no monitor (availmon report) needs
// only Decode, whose State holds the ledger decoded (State.Records).
//
// A running monitor writes through an Encoder, part by part, straight from
// its live state; Encode writes a State the same way, so the two cannot
// drift apart.
package statefile
