package logging

import "github.com/chainhost/chainhost/sdk/loglevel"

// LevelPair holds the two levels of one named logger.
type LevelPair struct {
	LogLevel     loglevel.Level `json:"logLevel"`
	DisplayLevel loglevel.Level `json:"displayLevel"`
}

// Min returns the more verbose of the two levels: the lowest level at which
// anything is still written.
func (p LevelPair) Min() loglevel.Level {
	return min(p.LogLevel, p.DisplayLevel)
}
