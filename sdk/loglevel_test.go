package sdk

import (
	"testing"

	"github.com/hashicorp/go-hclog"
)

func TestParseLogLevel(t *testing.T) {
	tests := []struct {
		name    string
		want    hclog.Level
		wantErr bool
	}{
		{name: "VERBO", want: hclog.Trace},
		{name: "verbo", want: hclog.Trace},
		{name: "DEBUG", want: hclog.Debug},
		{name: "Trace", want: hclog.Debug},
		{name: "INFO", want: hclog.Info},
		{name: "", want: hclog.Info},
		{name: "warn", want: hclog.Warn},
		{name: "ERROR", want: hclog.Error},
		{name: "FATAL", want: hclog.Error},
		{name: "off", want: hclog.Off},
		{name: "LOUD", wantErr: true},
		{name: "WARNING", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseLogLevel(tt.name)
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseLogLevel(%q) error = %v, want error %v", tt.name, err, tt.wantErr)
			}
			if !tt.wantErr && got != tt.want {
				t.Errorf("parseLogLevel(%q) = %v, want %v", tt.name, got, tt.want)
			}
		})
	}
}
