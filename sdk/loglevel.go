package sdk

import (
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/chainhost/chainhost/sdk/loglevel"
)

// parseLogLevel maps the level name the host sends ("" is INFO) to the
// hclog level that shows the same records.
func parseLogLevel(name string) (hclog.Level, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return hclog.Info, nil
	}
	l, err := loglevel.Parse(name)
	if err != nil {
		return hclog.NoLevel, err
	}
	return l.Hclog(), nil
}
