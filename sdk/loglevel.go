package sdk

import (
	"fmt"
	"strings"

	"github.com/hashicorp/go-hclog"
)

// parseLogLevel maps a chainhost log level name (case-insensitive; "" is
// INFO) to the hclog level that shows the same records.
func parseLogLevel(name string) (hclog.Level, error) {
	switch strings.ToUpper(strings.TrimSpace(name)) {
	case "VERBO":
		return hclog.Trace, nil
	case "DEBUG", "TRACE":
		return hclog.Debug, nil
	case "INFO", "":
		return hclog.Info, nil
	case "WARN":
		return hclog.Warn, nil
	case "ERROR", "FATAL":
		return hclog.Error, nil
	case "OFF":
		return hclog.Off, nil
	}
	return hclog.NoLevel, fmt.Errorf("unknown log level %q (want OFF, FATAL, ERROR, WARN, INFO, TRACE, DEBUG or VERBO)", name)
}
