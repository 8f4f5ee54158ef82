package e2e

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/chainhost/chainhost/core/nodetest"
	"github.com/chainhost/chainhost/plugins/dataapi/api"
	"github.com/chainhost/chainhost/plugins/xvm/blocks"
	"github.com/chainhost/chainhost/sdk/ids"
)

// checkDataVertices: the data API's vertices endpoint answers every vertex
// of X/vtx, by the alias x-chain and by the X-Chain's ID, with the fields
// of the vertex's own bytes; an unknown vertex, or another chain, is 404.
// The lists (latest, by height) answer the same vertices through the SDK
// (tests/dataapi-sdk/vertices.test.js); bad parameters are 400.
func checkDataVertices(t *testing.T, n *nodetest.Node, vtx []xContainer, since time.Time) {
	t.Helper()
	var info struct {
		ID ids.ID `json:"blockchainID"`
	}
	if err := n.Call(t.Context(), "/ext/info", "info.getBlockchainID", map[string]string{"alias": "X"}, &info); err != nil {
		t.Fatal(err)
	}
	xID := info.ID
	for i, c := range vtx {
		v, err := blocks.ParseVertex(c.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		for _, chain := range []string{api.XChainID, xID.String()} {
			var got api.XChainVertex
			dataGet(t, n, fmt.Sprintf("/v1/networks/fuji/blockchains/%s/vertices/%s", chain, c.ID), &got)
			if got.VertexHash != c.ID.String() || got.VertexHeight != v.Height || got.VertexIndex != uint64(i) ||
				got.VertexSizeBytes != len(c.Bytes) || got.TxCount != len(v.Txs) || len(got.Transactions) != len(v.Txs) ||
				len(got.ParentHashes) != len(v.Parents) {
				t.Fatalf("vertex %d: %+v", i, got)
			}
			for j, p := range v.Parents {
				if got.ParentHashes[j] != p.String() {
					t.Fatalf("vertex %d parent %d: %s, want %s", i, j, got.ParentHashes[j], p)
				}
			}
			for j, tx := range v.Txs {
				if want := ids.ID(sha256.Sum256(tx)).String(); got.Transactions[j] != want {
					t.Fatalf("vertex %d transaction %d: %s, want %s", i, j, got.Transactions[j], want)
				}
			}
			if ts := time.Unix(got.VertexTimestamp, 0); ts.Before(since.Truncate(time.Second)) || ts.After(time.Now()) {
				t.Fatalf("vertex %d timestamp %s, not between the test's start %s and now", i, ts, since)
			}
		}
	}
	unknown := ids.ID{1, 2, 3}
	status, body := restGet(t, t.Context(), fmt.Sprintf("%s/v1/networks/fuji/blockchains/x-chain/vertices/%s", n.URL, unknown))
	wantRESTError(t, "unknown vertex", status, body, http.StatusNotFound, fmt.Sprintf("vertex %s not found", unknown))
	status, body = restGet(t, t.Context(), fmt.Sprintf("%s/v1/networks/fuji/blockchains/%s/vertices/%s", n.URL, ids.ID{9}, vtx[0].ID))
	wantRESTError(t, "another chain", status, body, http.StatusNotFound, "is not this node's X-Chain")
	status, body = restGet(t, t.Context(), fmt.Sprintf("%s/v1/networks/fuji/blockchains/x-chain/vertices/nothex", n.URL))
	wantRESTError(t, "bad hash", status, body, http.StatusBadRequest, `vertexHash: must be a vertex ID (CB58), got "nothex"`)
	var raw json.RawMessage
	dataGet(t, n, "/v1/networks/testnet/blockchains/x-chain/vertices/"+vtx[0].ID.String(), &raw)

	// The lists, through the official SDK with validation on.
	vertexIDs := make([]string, len(vtx))
	for i, c := range vtx {
		vertexIDs[i] = c.ID.String()
	}
	list, err := json.Marshal(vertexIDs)
	if err != nil {
		t.Fatal(err)
	}
	runSDKSuite(t, "vertices.test.js", "DATAAPI_NODE_URL="+n.URL, "DATAAPI_VERTICES="+string(list))
	var page api.ListXChainVerticesResponse
	dataGet(t, n, "/v1/networks/fuji/blockchains/x-chain/vertices?pageSize=1", &page)
	base := n.URL + "/v1/networks/fuji/blockchains/x-chain/"
	for _, tc := range []struct{ path, want string }{
		{"vertices?pageSize=0", "pageSize: must be"},
		{"vertices?pageSize=101", "pageSize: must be"},
		{"vertices?pageToken=nope", "pageToken"},
		{"vertices:listByHeight", "vertexHeight: must be given"},
		{"vertices:listByHeight?vertexHeight=-1", "vertexHeight: must be a non-negative"},
		{"vertices:listByHeight?vertexHeight=0&sortOrder=up", "sortOrder: must be"},
		{"vertices:listByHeight?vertexHeight=0&pageToken=" + page.NextPageToken, "pageToken: not a valid page token"},
	} {
		status, body := restGet(t, t.Context(), base+tc.path)
		wantRESTError(t, tc.path, status, body, http.StatusBadRequest, tc.want)
	}
	status, body = restGet(t, t.Context(), fmt.Sprintf("%s/v1/networks/fuji/blockchains/%s/vertices", n.URL, ids.ID{9}))
	wantRESTError(t, "another chain's vertices", status, body, http.StatusNotFound, "is not this node's X-Chain")
}
