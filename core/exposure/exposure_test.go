package exposure

import (
	"errors"
	"slices"
	"testing"
)

func TestIsLoopback(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want bool
	}{
		{"127.0.0.1", true},
		{"127.0.0.1:9650", true},
		{"127.1.2.3:0", true},
		{"::1", true},
		{"[::1]:9650", true},
		{"[::ffff:127.0.0.1]:9650", true},
		{"localhost:9650", true},
		{"LocalHost", true},
		{"0.0.0.0", false},
		{"0.0.0.0:9650", false},
		{"::", false},
		{"[::]:9650", false},
		{"", false},
		{":9650", false},
		{"192.168.1.10:9650", false},
		{"10.0.0.1", false},
		{"128.0.0.1", false},
		{"example.com:9650", false},
		{"localhost.example.com", false},
		{"[fe80::1]:9650", false},
	} {
		if got := IsLoopback(tc.addr); got != tc.want {
			t.Errorf("IsLoopback(%q) = %v, want %v", tc.addr, got, tc.want)
		}
	}
}

func TestParseName(t *testing.T) {
	for _, tc := range []struct {
		in, chain, api string
	}{
		{"C.dev", "C", "dev"},
		{"my-chain.personal", "my-chain", "personal"},
	} {
		chain, api, err := ParseName(tc.in)
		if err != nil || chain != tc.chain || api != tc.api {
			t.Errorf("ParseName(%q) = %q, %q, %v; want %q, %q", tc.in, chain, api, err, tc.chain, tc.api)
		}
		if Name(chain, api) != tc.in {
			t.Errorf("Name(%q, %q) = %q, want %q", chain, api, Name(chain, api), tc.in)
		}
	}
	for _, bad := range []string{"", "C", "dev", ".dev", "C.", "."} {
		if _, _, err := ParseName(bad); err == nil {
			t.Errorf("ParseName(%q) succeeded", bad)
		}
	}
}

func TestCheck(t *testing.T) {
	main := Listener{Addr: "0.0.0.0", Key: "http-host"}
	local := Listener{Addr: "127.0.0.1", Key: "http-host"}
	own := Listener{Addr: "0.0.0.0:9654", Key: "chains[1].listen"}
	ownLocal := Listener{Addr: "127.0.0.1:9654", Key: "chains[1].listen"}
	for _, tc := range []struct {
		name      string
		apis      []string
		listeners []Listener
		allowed   []string
		refused   []string // nil: served
		beyond    []Listener
		leave     []string
	}{
		{name: "loopback only", apis: []string{"dev", "personal"}, listeners: []Listener{local, ownLocal}},
		{name: "no unsafe API", listeners: []Listener{main, own}},
		{name: "main listener beyond", apis: []string{"personal", "dev"}, listeners: []Listener{main},
			refused: []string{"dev", "personal"}, beyond: []Listener{main}},
		{name: "own listener beyond", apis: []string{"dev"}, listeners: []Listener{local, own},
			refused: []string{"dev"}, beyond: []Listener{own}},
		{name: "both beyond", apis: []string{"dev"}, listeners: []Listener{main, own},
			refused: []string{"dev"}, beyond: []Listener{main, own}},
		{name: "allowed", apis: []string{"dev", "personal"}, listeners: []Listener{main},
			allowed: []string{"C.dev", "C.personal"}, leave: []string{"dev", "personal"}},
		{name: "partly allowed", apis: []string{"dev", "personal"}, listeners: []Listener{main},
			allowed: []string{"C.dev"}, refused: []string{"personal"}, beyond: []Listener{main}},
		{name: "allowed for another chain", apis: []string{"dev"}, listeners: []Listener{main},
			allowed: []string{"P.dev"}, refused: []string{"dev"}, beyond: []Listener{main}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leave, err := Check("C", tc.apis, tc.listeners, tc.allowed)
			var refused *RefusedError
			if tc.refused == nil {
				if err != nil {
					t.Fatalf("Check: %v, want served", err)
				}
				if !slices.Equal(leave, tc.leave) {
					t.Errorf("served beyond loopback by leave: %v, want %v", leave, tc.leave)
				}
				return
			}
			if !errors.As(err, &refused) {
				t.Fatalf("Check = %v, %v; want a *RefusedError", leave, err)
			}
			if refused.Chain != "C" || !slices.Equal(refused.APIs, tc.refused) || !slices.Equal(refused.Beyond, tc.beyond) {
				t.Errorf("refused %+v, want chain C, APIs %v, beyond %v", refused, tc.refused, tc.beyond)
			}
		})
	}
}

func TestRefusedMessage(t *testing.T) {
	for _, tc := range []struct {
		err  RefusedError
		want string
	}{
		{RefusedError{Chain: "P", APIs: []string{"dev"}, Beyond: []Listener{{Addr: "0.0.0.0", Key: "http-host"}}},
			"chain P: the dev API is unsafe in public and would be reachable beyond loopback on 0.0.0.0 (http-host); " +
				"turn it off in the chain's config, listen on loopback only, or allow it by name with --http-allow-unsafe-apis=P.dev"},
		{RefusedError{Chain: "C", APIs: []string{"dev", "personal"}, Beyond: []Listener{
			{Addr: "0.0.0.0", Key: "http-host"}, {Addr: "[::]:9654", Key: "chains[1].listen"}}},
			"chain C: the dev and personal APIs are unsafe in public and would be reachable beyond loopback on " +
				"0.0.0.0 (http-host) and [::]:9654 (chains[1].listen); turn them off in the chain's config, " +
				"listen on loopback only, or allow them by name with --http-allow-unsafe-apis=C.dev,C.personal"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("message:\n got %s\nwant %s", got, tc.want)
		}
	}
}
