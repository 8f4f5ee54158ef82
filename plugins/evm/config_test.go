package evm

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/log"
)

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		check   func(config) bool
		wantErr string
	}{
		{name: "empty gives defaults", raw: ``, check: func(c config) bool {
			return c.HistoricalProofQueryWindow == 43200 && c.APIMaxBatchSize == 40 && c.BlockProduction == produceAuto && !c.PruningEnabled && c.DebugAPIEnabled && !c.PersonalAPIEnabled
		}},
		{name: "null gives defaults", raw: `null`, check: func(c config) bool { return c.APIMaxBatchSize == 40 }},
		{name: "interval", raw: `{"block-production":"Interval","block-interval":"3s"}`, check: func(c config) bool {
			return c.BlockProduction == produceInterval && time.Duration(c.BlockInterval) == 3*time.Second
		}},
		{name: "interval in seconds", raw: `{"block-production":"interval","block-interval":2}`, check: func(c config) bool {
			return time.Duration(c.BlockInterval) == 2*time.Second
		}},
		{name: "window 0", raw: `{"historical-proof-query-window":0,"pruning-enabled":true}`, check: func(c config) bool {
			return c.HistoricalProofQueryWindow == 0 && c.PruningEnabled
		}},
		{name: "unknown key", raw: `{"pruning":true}`, wantErr: "unknown field"},
		{name: "bad mode", raw: `{"block-production":"sometimes"}`, wantErr: "block-production"},
		{name: "short interval", raw: `{"block-production":"interval","block-interval":"100ms"}`, wantErr: "block-interval"},
		{name: "zero batch", raw: `{"api-max-batch-size":0}`, wantErr: "api-max-batch-size"},
		{name: "bad level", raw: `{"log-level":"loud"}`, wantErr: "log level"},
		{name: "head without file", raw: `{"import-head":"0x01"}`, wantErr: "import-chain-file"},
		{name: "atomic fee dynamic by default", raw: `{}`, check: func(c config) bool { return c.AtomicTxFee.Dynamic && c.AVAXAssetID == "" }},
		{name: "atomic fee fixed", raw: `{"atomic-tx-fee":1000000}`, check: func(c config) bool {
			return !c.AtomicTxFee.Dynamic && c.AtomicTxFee.Fixed == 1000000
		}},
		{name: "atomic fee as a string", raw: `{"atomic-tx-fee":"250"}`, check: func(c config) bool { return c.AtomicTxFee.Fixed == 250 }},
		{name: "atomic fee dynamic", raw: `{"atomic-tx-fee":"Dynamic"}`, check: func(c config) bool { return c.AtomicTxFee.Dynamic }},
		{name: "bad atomic fee", raw: `{"atomic-tx-fee":"cheap"}`, wantErr: `atomic-tx-fee must be "dynamic" or a number of nAVAX`},
		{name: "asset ID", raw: `{"avax-asset-id":"2fombhL7aGPwj3KH4bfrmJwW6PVnMobf9Y2fn9GwxiAAJyFDbe"}`, check: func(c config) bool { return c.AVAXAssetID != "" }},
		{name: "trace and subscription limits by default", raw: `{}`, check: func(c config) bool {
			return time.Duration(c.RPCTraceTimeout) == 5*time.Second && c.RPCWSMaxSubscriptions == 100 && c.RPCTraceMaxSize == 25_000_000
		}},
		{name: "trace size cap", raw: `{"rpc-trace-max-size":0}`, check: func(c config) bool { return c.RPCTraceMaxSize == 0 }},
		{name: "negative trace size cap", raw: `{"rpc-trace-max-size":-1}`, wantErr: "rpc-trace-max-size"},
		{name: "trace limit", raw: `{"rpc-trace-timeout":"250ms","rpc-ws-max-subscriptions":0}`, check: func(c config) bool {
			return time.Duration(c.RPCTraceTimeout) == 250*time.Millisecond && c.RPCWSMaxSubscriptions == 0
		}},
		{name: "negative trace limit", raw: `{"rpc-trace-timeout":"-1s"}`, wantErr: "rpc-trace-timeout"},
		{name: "negative subscription cap", raw: `{"rpc-ws-max-subscriptions":-1}`, wantErr: "rpc-ws-max-subscriptions"},
		{name: "bad asset ID", raw: `{"avax-asset-id":"AVAX"}`, wantErr: "avax-asset-id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseConfig([]byte(tt.raw))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(c) {
				t.Fatalf("config %+v", c)
			}
		})
	}
}

func TestParseGenesis(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		wantErr string
	}{
		{name: "fills merge and blobs", raw: `{"config":{"chainId":7,"homesteadBlock":0,"eip150Block":0,"eip155Block":0,"eip158Block":0,"byzantiumBlock":0,"constantinopleBlock":0,"petersburgBlock":0,"istanbulBlock":0,"berlinBlock":0,"londonBlock":0,"shanghaiTime":0,"cancunTime":0},"gasLimit":"0x0","difficulty":"0x0","alloc":{}}`},
		{name: "no config", raw: `{"gasLimit":"0x1","difficulty":"0x0","alloc":{}}`, wantErr: "no \"config\""},
		{name: "no chain id", raw: `{"config":{},"gasLimit":"0x1","difficulty":"0x0","alloc":{}}`, wantErr: "chainId"},
		{name: "not json", raw: `{`, wantErr: "evm genesis"},
		{name: "no gas limit", raw: `{"config":{"chainId":7},"difficulty":"0x0","alloc":{}}`, wantErr: "gasLimit"},
		{name: "fork order", raw: `{"config":{"chainId":7,"londonBlock":0},"gasLimit":"0x1","difficulty":"0x0","alloc":{}}`, wantErr: "fork ordering"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := ParseGenesis([]byte(tt.raw))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g.Config.TerminalTotalDifficulty == nil || g.Config.TerminalTotalDifficulty.Sign() != 0 || g.Config.BlobScheduleConfig == nil || g.GasLimit == 0 {
				t.Fatalf("defaults not filled: %+v", g.Config)
			}
		})
	}
}

func TestParseLevel(t *testing.T) {
	for _, name := range []string{"OFF", "fatal", "Error", "WARN", "info", "trace", "DEBUG", "verbo", "crit"} {
		if _, err := parseLevel(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := parseLevel("loud"); err == nil {
		t.Error("loud accepted")
	}
}

// TestLevelsMatchGoEthereum: sdk/loglevel names go-ethereum's trace and
// crit levels without importing go-ethereum; they must be its values.
func TestLevelsMatchGoEthereum(t *testing.T) {
	for name, want := range map[string]slog.Level{"VERBO": log.LevelTrace, "DEBUG": log.LevelDebug, "INFO": log.LevelInfo, "WARN": log.LevelWarn, "ERROR": log.LevelError, "FATAL": log.LevelCrit, "crit": log.LevelCrit} {
		if got, err := parseLevel(name); err != nil || got != want {
			t.Errorf("parseLevel(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	if off, _ := parseLevel("OFF"); off <= log.LevelCrit {
		t.Errorf("OFF = %v lets crit records through", off)
	}
}
