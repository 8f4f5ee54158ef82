package logging

// LevelPair holds the two levels of one named logger.
type LevelPair struct {
	LogLevel     Level `json:"logLevel"`
	DisplayLevel Level `json:"displayLevel"`
}

// Min returns the more verbose of the two levels: the lowest level at which
// anything is still written.
func (p LevelPair) Min() Level {
	return min(p.LogLevel, p.DisplayLevel)
}
