package rest

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestNodeNetwork: the network ID decides unless config names a network;
// mainnet answers to mainnet only, every other network to fuji and testnet.
func TestNodeNetwork(t *testing.T) {
	tests := []struct {
		id         uint32
		configured string
		mainnet    bool
		wantErr    string
	}{
		{1, "", true, ""},
		{12345, "", false, ""},
		{5, "", false, ""},
		{12345, "mainnet", true, ""},
		{1, "fuji", false, ""},
		{1, "testnet", false, ""},
		{1, "devnet", false, `must be one of mainnet|fuji|testnet, or empty to follow the network ID, got "devnet"`},
	}
	for _, tt := range tests {
		n, err := NodeNetwork(tt.id, tt.configured)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("NodeNetwork(%d, %q) error %v, want %q", tt.id, tt.configured, err, tt.wantErr)
			}
			continue
		}
		if err != nil || n.Mainnet != tt.mainnet {
			t.Errorf("NodeNetwork(%d, %q) = %+v, %v; want mainnet %v", tt.id, tt.configured, n, err, tt.mainnet)
		}
		for name, want := range map[string]bool{"mainnet": tt.mainnet, "fuji": !tt.mainnet, "testnet": !tt.mainnet} {
			if n.Serves(name) != want {
				t.Errorf("%+v serves %s: %v", n, name, !want)
			}
		}
	}
}

// TestNetworkPathParam: a name outside the three is a 400 naming the
// parameter, a name the node does not answer to a 404.
func TestNetworkPathParam(t *testing.T) {
	local := Network{}
	tests := []struct {
		value      string
		wantStatus int
		wantMsg    string
	}{
		{"fuji", 0, ""},
		{"testnet", 0, ""},
		{"mainnet", 404, "this node does not serve network mainnet"},
		{"Fuji", 400, `network: must be one of mainnet|fuji|testnet, got "Fuji"`},
	}
	for _, tt := range tests {
		mux := http.NewServeMux()
		var got string
		var err error
		mux.HandleFunc("/n/{network}", func(_ http.ResponseWriter, r *http.Request) { got, err = local.PathParam(r, "network") })
		mux.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/n/"+tt.value, nil))
		if tt.wantStatus == 0 {
			if err != nil || got != tt.value {
				t.Errorf("%s: %q, %v", tt.value, got, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Status != tt.wantStatus || e.Message != tt.wantMsg {
			t.Errorf("%s: %v, want %d %q", tt.value, err, tt.wantStatus, tt.wantMsg)
		}
	}
}
