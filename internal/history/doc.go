// Package history keeps each app's most recent checks compactly, for
// /api/apps/{name} and the state file: Checks takes a Check per cycle and
// gives them back oldest first, and writes itself straight into a state
// file's Encoder. A Checks is safe for concurrent use: a cycle adds while
// requests list and a save encodes.
package history
