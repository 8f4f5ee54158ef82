package tokens

import (
	"context"
	"encoding/base64"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/plugins/dataapi/derive"
	"github.com/chainhost/chainhost/plugins/dataapi/evmrpc"
	"github.com/chainhost/chainhost/plugins/dataapi/internal/fakeevm"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
)

func TestMetadataDocuments(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok", "/ipfs/cid/1.json":
			_, _ = w.Write([]byte(`{"name":"N","description":"D","image":"ipfs://i","animation_url":"a","external_url":"e","background_color":"fff","attributes":[{"k":1}],"properties":{"p":true},"decimals":2}`))
		case "/busy":
			w.WriteHeader(http.StatusTooManyRequests)
		case "/big":
			_, _ = w.Write([]byte(`{"name":"` + strings.Repeat("x", 400) + `"}`))
		case "/slow":
			time.Sleep(300 * time.Millisecond)
			_, _ = w.Write([]byte(`{}`))
		case "/notjson":
			_, _ = w.Write([]byte(`<html>`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	now := func() time.Time { return time.Unix(1_800_000_000, 0) }
	on := metadataReader{opts: FetchOptions{Enabled: true, Timeout: 100 * time.Millisecond, MaxBytes: 250, IPFSGateway: srv.URL + "/ipfs/", AllowPrivate: true}, now: now}
	// guarded is the default: the test server, on loopback, is refused,
	// named by address or by a name resolving to it, directly or through
	// the gateway.
	guarded := metadataReader{opts: FetchOptions{Enabled: true, Timeout: time.Second, MaxBytes: 250, IPFSGateway: srv.URL + "/ipfs/"}, now: now}
	byName := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	off := metadataReader{opts: FetchOptions{Timeout: time.Second, MaxBytes: 250}, now: now}
	b64 := func(s string) string {
		return "data:application/json;base64," + base64.StdEncoding.EncodeToString([]byte(s))
	}
	for _, tc := range []struct {
		r      *metadataReader
		uri    string
		status string
		name   string
	}{
		{&off, b64(`{"name":"inline"}`), statusIndexed, "inline"},
		{&off, `data:application/json,{"name":"plain%20text"}`, statusIndexed, "plain text"},
		{&off, `data:application/json;utf8,{"name":"x"}`, statusIndexed, "x"},
		{&off, b64(`{"name":`), statusInvalidMetadataJSON, ""},
		{&off, b64(`{"name":"a"} {"name":"b"}`), statusInvalidMetadataJSON, ""},
		{&off, b64(`["a"]`), statusInvalidMetadata, ""},
		{&off, b64(`{"name":"` + strings.Repeat("y", 400) + `"}`), statusTooLarge, ""},
		{&off, "data:application/json;base64,!!!", statusInvalidTokenURI, ""},
		{&off, "data:nocomma", statusInvalidTokenURI, ""},
		{&off, "", statusInvalidTokenURI, ""},
		{&off, "  ", statusInvalidTokenURI, ""},
		{&off, "ftp://host/x", statusInvalidScheme, ""},
		{&off, "ar://abc", statusInvalidScheme, ""},
		{&off, srv.URL + "/ok", statusUnindexed, ""},
		{&off, "ipfs://cid/1.json", statusUnindexed, ""},
		{&on, srv.URL + "/ok", statusIndexed, "N"},
		{&on, "ipfs://cid/1.json", statusIndexed, "N"},
		{&on, "ipfs://ipfs/cid/1.json", statusIndexed, "N"},
		{&on, srv.URL + "/busy", statusThrottled, ""},
		{&on, srv.URL + "/missing", statusUnreachable, ""},
		{&on, srv.URL + "/big", statusTooLarge, ""},
		{&on, srv.URL + "/slow", statusUnreachable, ""},
		{&on, srv.URL + "/notjson", statusInvalidMetadataJSON, ""},
		{&on, "http://127.0.0.1:1/nothing", statusUnreachable, ""},
		{&guarded, srv.URL + "/ok", statusUnreachable, ""},
		{&guarded, byName + "/ok", statusUnreachable, ""},
		{&guarded, "ipfs://cid/1.json", statusUnreachable, ""},
		{&guarded, "http://169.254.169.254/latest/meta-data", statusUnreachable, ""},
		{&guarded, "http://[::1]:1/x", statusUnreachable, ""},
	} {
		md := tc.r.read(context.Background(), tc.uri)
		if md.Status != tc.status || md.Name != tc.name {
			t.Errorf("read(%.60q) = %s %q, want %s %q", tc.uri, md.Status, md.Name, tc.status, tc.name)
		}
		if (md.Status == statusIndexed) != (md.UpdatedAt == 1_800_000_000) {
			t.Errorf("read(%.60q): updated at %d", tc.uri, md.UpdatedAt)
		}
	}
	md := on.read(context.Background(), srv.URL+"/ok")
	want := store.NFTMetadata{
		Status: statusIndexed, UpdatedAt: 1_800_000_000, Name: "N", Description: "D", ImageURI: "ipfs://i", AnimationURI: "a",
		ExternalURL: "e", Background: "fff", Attributes: `[{"k":1}]`, Properties: `{"p":true}`, Decimals: 2, HasDecimals: true,
	}
	if md != want {
		t.Errorf("full document: %+v\nwant %+v", md, want)
	}
}

func TestABI(t *testing.T) {
	var b32 [32]byte
	copy(b32[:], "MKR")
	if got := decodeString(b32[:]); got != "MKR" {
		t.Errorf("bytes32 symbol: %q", got)
	}
	if got := decodeString([]byte{1, 2}); got != "" {
		t.Errorf("short answer: %q", got)
	}
	bad := make([]byte, 64)
	bad[31] = 0xff // offset past the end
	if got := decodeString(bad); got != "" {
		t.Errorf("bad offset: %q", got)
	}
	if got := substituteID("https://x/{id}.json", common.BigToHash(big.NewInt(255)).Bytes()); got != "https://x/"+strings.Repeat("0", 62)+"ff.json" {
		t.Errorf("substituteID: %s", got)
	}
	if got := clean("a\x00b\xffc"); got != "abc" {
		t.Errorf("clean: %q", got)
	}
}

// fakeCaller serves chain calls from a fake chain.
type fakeCaller struct{ c *fakeevm.Chain }

func (f fakeCaller) Call(ctx context.Context, _, _ string, body []byte) (int, []byte, error) {
	return f.c.Serve(ctx, body)
}

func TestReader(t *testing.T) {
	c := fakeevm.New(1)
	erc20 := common.HexToAddress("0x20")
	nft := common.HexToAddress("0x721")
	multi := common.HexToAddress("0x1155")
	plain := common.HexToAddress("0x99")
	c.AddToken(erc20, &fakeevm.Token{Kind: fakeevm.ERC20, Name: "Twenty", Symbol: "TW", Decimals: 8})
	c.AddToken(nft, &fakeevm.Token{Kind: fakeevm.ERC721, Name: "Art", Symbol: "ART", URI: func(id *big.Int) string {
		if id.Int64() == 404 {
			return ""
		}
		return `data:application/json,{"name":"art ` + id.String() + `"}`
	}})
	c.AddToken(multi, &fakeevm.Token{Kind: fakeevm.ERC1155, URI: func(*big.Int) string { return "https://x/{id}" }})
	c.AddToken(plain, &fakeevm.Token{Kind: fakeevm.Plain})
	holder := common.HexToAddress("0xabc")
	b := c.NewBlock()
	b.Tx(holder, &erc20, nil, nil).ERC20(erc20, common.Address{}, holder, big.NewInt(77))
	b.Commit()

	r := NewReader(evmrpc.New(fakeCaller{c}, "C"), Options{})
	ctx := context.Background()
	toks, err := r.Tokens(ctx, map[common.Address]derive.TokenNeed{erc20: {Kind: store.KindERC20, Block: 1}, plain: {Kind: store.KindERC20, Block: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if toks[erc20] != (store.Token{Address: erc20, Kind: store.KindERC20, Name: "Twenty", Symbol: "TW", Decimals: 8}) ||
		toks[plain] != (store.Token{Address: plain, Kind: store.KindERC20}) {
		t.Errorf("Tokens: %+v", toks)
	}
	probe, err := r.Probe(ctx, map[common.Address]uint64{erc20: 1, nft: 1, multi: 1, plain: 1, common.HexToAddress("0x1"): 1})
	if err != nil {
		t.Fatal(err)
	}
	for a, want := range map[common.Address]store.TokenKind{erc20: store.KindERC20, nft: store.KindERC721, multi: store.KindERC1155, plain: store.KindUnknown, common.HexToAddress("0x1"): store.KindUnknown} {
		if probe[a].Kind != want {
			t.Errorf("Probe(%s) = %v, want %v", a.Hex()[:6], probe[a].Kind, want)
		}
	}
	if probe[nft].Name != "Art" || probe[nft].Decimals != 0 || probe[erc20].Decimals != 8 {
		t.Errorf("Probe metadata: %+v %+v", probe[nft], probe[erc20])
	}
	nfts, err := r.NFTs(ctx, map[derive.NFTKey]derive.NFTNeed{
		{Token: nft, ID: common.BigToHash(big.NewInt(5))}:   {Kind: store.KindERC721, Block: 1},
		{Token: nft, ID: common.BigToHash(big.NewInt(404))}: {Kind: store.KindERC721, Block: 1},
		{Token: multi, ID: common.BigToHash(big.NewInt(2))}: {Kind: store.KindERC1155, Block: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := nfts[derive.NFTKey{Token: nft, ID: common.BigToHash(big.NewInt(5))}]; n.Metadata.Status != statusIndexed || n.Metadata.Name != "art 5" || n.TokenID.Int64() != 5 {
		t.Errorf("NFT 5: %+v", n)
	}
	if n := nfts[derive.NFTKey{Token: nft, ID: common.BigToHash(big.NewInt(404))}]; n.Metadata.Status != statusMissingToken || n.URI != "" {
		t.Errorf("NFT 404: %+v", n)
	}
	if n := nfts[derive.NFTKey{Token: multi, ID: common.BigToHash(big.NewInt(2))}]; n.Metadata.Status != statusUnindexed || n.URI != "https://x/"+strings.Repeat("0", 63)+"2" {
		t.Errorf("ERC-1155 2: %+v", n)
	}
	bals, err := r.BalancesOf(ctx, []derive.BalanceAt{{Key: derive.BalanceKey{Holder: holder, Token: erc20}, Block: 1}, {Key: derive.BalanceKey{Holder: holder, Token: erc20}, Block: 0}})
	if err != nil {
		t.Fatal(err)
	}
	if bals[derive.BalanceAt{Key: derive.BalanceKey{Holder: holder, Token: erc20}, Block: 1}].Int64() != 77 ||
		bals[derive.BalanceAt{Key: derive.BalanceKey{Holder: holder, Token: erc20}, Block: 0}].Int64() != 0 {
		t.Errorf("BalancesOf: %v", bals)
	}
	// A pruned block falls back to the latest state.
	c.PruneBelow(1)
	toks, err = r.Tokens(ctx, map[common.Address]derive.TokenNeed{erc20: {Kind: store.KindERC20, Block: 0}})
	if err != nil || toks[erc20].Name != "Twenty" {
		t.Errorf("Tokens at a pruned block: %+v, %v", toks, err)
	}
}

// TestFetchGuard: the default client refuses private addresses at the
// dial, so that a redirect from a public host cannot reach one either;
// with AllowPrivate it reaches them.
func TestFetchGuard(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		_, _ = w.Write([]byte(`{"name":"private"}`))
	}))
	defer srv.Close()
	for _, allow := range []bool{false, true} {
		c := newClient(FetchOptions{Timeout: time.Second, AllowPrivate: allow})
		resp, err := c.Get(srv.URL)
		if allow {
			if err != nil {
				t.Fatalf("allowed: %v", err)
			}
			resp.Body.Close()
			continue
		}
		if err == nil || !strings.Contains(err.Error(), errPrivate.Error()) {
			t.Fatalf("a loopback fetch: %v, want refused", err)
		}
	}
	if hits != 1 {
		t.Errorf("the server was reached %d times, want once (allowed)", hits)
	}
}
