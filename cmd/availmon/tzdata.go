package main

// The time zones of recurring maintenance windows (time_zone:
// Europe/Berlin) must load on machines without /usr/share/zoneinfo, such as
// distroless and scratch images.
import _ "time/tzdata"
