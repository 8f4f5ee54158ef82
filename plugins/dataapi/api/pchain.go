package api

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/pvmapi"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/ids"
	"github.com/chainhost/chainhost/sdk/rest"
)

// The primary network's names in paths and answers.
const (
	// PChainID is the alias of the P-Chain in blockchainId paths, beside
	// its blockchain ID.
	PChainID = "p-chain"
	// cChainID is the C-Chain's alias in blockchainId paths.
	cChainID = "c-chain"
)

// primaryNetworkID is the primary network's subnet ID.
var primaryNetworkID = ids.ID{}

// The page size of the subnet and blockchain lists.
var networkPageSize = rest.IntRange{Default: 100, Min: 1, Max: 10000}

// PrimaryNetworkBlock is a P-Chain block as the data API shows it
// (docs/data-api.md, "40. P-Chain blocks").
type PrimaryNetworkBlock struct {
	BlockNumber    string   `json:"blockNumber"`
	BlockHash      string   `json:"blockHash"`
	ParentHash     string   `json:"parentHash"`
	BlockTimestamp uint64   `json:"blockTimestamp"`
	BlockType      string   `json:"blockType"`
	TxCount        int      `json:"txCount"`
	Transactions   []string `json:"transactions"`
	BlockSizeBytes uint64   `json:"blockSizeBytes"`
}

// ListPrimaryNetworkBlocksResponse is the answer of the block lists.
type ListPrimaryNetworkBlocksResponse struct {
	NextPageToken string                `json:"nextPageToken,omitempty"`
	Blocks        []PrimaryNetworkBlock `json:"blocks"`
	ChainInfo     PrimaryChainInfo      `json:"chainInfo"`
}

// pBlock shows a P-Chain block.
func pBlock(b *store.PBlock) PrimaryNetworkBlock {
	out := PrimaryNetworkBlock{BlockNumber: strconv.FormatUint(b.Height, 10), BlockHash: b.ID.String(), ParentHash: b.ParentID.String(),
		BlockTimestamp: b.Timestamp, BlockType: b.Type, TxCount: len(b.TxIDs), Transactions: make([]string, len(b.TxIDs)),
		BlockSizeBytes: b.Size}
	for i, id := range b.TxIDs {
		out.Transactions[i] = id.String()
	}
	return out
}

// pChainPath reads the network and blockchainId path parameters of a
// P-Chain endpoint and returns the network and the node's P-Chain ID. The
// X- and C-Chain are named apart: their blocks are not served yet.
func (s *Server) pChainPath(r *http.Request) (string, ids.ID, error) {
	network, err := s.opts.Network.PathParam(r, "network")
	if err != nil {
		return "", ids.ID{}, err
	}
	chain, err := rest.PathParam(r, "blockchainId")
	if err != nil {
		return "", ids.ID{}, err
	}
	p, ok := s.pChain(r.Context())
	switch {
	case !ok:
		return "", ids.ID{}, rest.NotFound("the P-Chain is not available: this node runs none")
	case chain == PChainID || chain == p.String():
		return network, p, nil
	case chain == XChainID || chain == cChainID || s.isChain(r.Context(), chain, "X") || s.isChain(r.Context(), chain, "C"):
		return "", ids.ID{}, rest.NotFound("blockchain %s: only the P-Chain's blocks and transactions are served yet (%s or %s)", rest.Quote(chain), PChainID, p)
	}
	return "", ids.ID{}, rest.NotFound("blockchain %s is not this node's P-Chain (%s or %s)", rest.Quote(chain), PChainID, p)
}

// pChain returns the blockchain ID of the node's P-Chain (the chain
// aliased P, running the P-Chain VM), if it has one.
func (s *Server) pChain(ctx context.Context) (ids.ID, bool) {
	info, err := s.opts.Host.Chains.Resolve(ctx, "P")
	if err != nil || info.VMName != pvmapi.VMName {
		return ids.ID{}, false
	}
	return info.ID, true
}

// isChain reports whether id is the blockchain ID of the chain aliased
// alias.
func (s *Server) isChain(ctx context.Context, id, alias string) bool {
	info, err := s.opts.Host.Chains.Resolve(ctx, alias)
	return err == nil && info.ID.String() == id
}

// timeRange reads startTimestamp and endTimestamp and returns the heights
// of the P-Chain's blocks in that range: from inclusive, to exclusive (0:
// no upper bound). Block times never go down, so each bound is a binary
// search of point reads.
func (s *Server) timeRange(ctx context.Context, q *rest.Params, chain ids.ID) (from, to uint64, scope string, err error) {
	start, hasStart := q.Uint64("startTimestamp")
	end, hasEnd := q.Uint64("endTimestamp")
	if hasStart && hasEnd && end < start {
		return 0, 0, "", rest.BadRequest("endTimestamp: must not be before startTimestamp (%d), got %d", start, end)
	}
	st, err := s.opts.Store.State(ctx, chain)
	if err != nil || st.Next == 0 {
		return 0, 0, "", err
	}
	// first returns the least height whose block is later than t.
	first := func(after func(ts uint64) bool) (uint64, error) {
		lo, hi := uint64(0), st.Next
		for lo < hi {
			mid := lo + (hi-lo)/2
			b, err := s.opts.Store.PBlock(ctx, chain, mid)
			if err != nil {
				return 0, err
			}
			if after(b.Timestamp) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		return lo, nil
	}
	if hasStart {
		if from, err = first(func(ts uint64) bool { return ts >= start }); err != nil {
			return 0, 0, "", err
		}
		scope += strconv.FormatUint(start, 10)
	}
	scope += "-"
	if hasEnd {
		if to, err = first(func(ts uint64) bool { return ts > end }); err != nil {
			return 0, 0, "", err
		}
		scope += strconv.FormatUint(end, 10)
		if to == 0 {
			from = 1 // nothing in range: an empty range below every block
			to = 1
		}
	}
	return from, to, scope, nil
}

// listPBlocks answers GET /v1/networks/{network}/blockchains/{blockchainId}/blocks:
// the P-Chain's indexed blocks, newest first, within startTimestamp and
// endTimestamp. A page token carries the height below which the next
// page starts.
func (s *Server) listPBlocks(r *http.Request) (any, error) {
	network, chain, err := s.pChainPath(r)
	if err != nil {
		return nil, err
	}
	q := rest.Query(r)
	p := store.Page{Limit: q.Int("pageSize", listPageSize), Desc: true}
	token := q.String("pageToken", "")
	from, to, bounds, err := s.timeRange(r.Context(), q, chain)
	if qerr := q.Err(); qerr != nil {
		return nil, qerr
	}
	if err != nil {
		return nil, err
	}
	if from >= to && to > 0 {
		from, to = 0, 0
		p.Limit = 0
	}
	p.FromBlock, p.ToBlock = from, to
	scope := rest.Scope("pBlocks", chain.String(), bounds)
	cur, err := s.openToken(token, scope)
	if err != nil {
		return nil, err
	}
	out := ListPrimaryNetworkBlocksResponse{Blocks: []PrimaryNetworkBlock{}, ChainInfo: PrimaryChainInfo{ChainName: PChainID, Network: network}}
	if p.Limit == 0 {
		return out, nil
	}
	p.Cursor = cur.C
	blocks, next, err := s.opts.Store.PBlocks(r.Context(), chain, p)
	if err != nil {
		return nil, storeErr(err)
	}
	for i := range blocks {
		out.Blocks = append(out.Blocks, pBlock(&blocks[i]))
	}
	out.NextPageToken, err = s.sealToken(scope, next, nil)
	return out, err
}

// getPBlock answers GET /v1/networks/{network}/blockchains/{blockchainId}/blocks/{blockId}:
// a P-Chain block by its ID.
func (s *Server) getPBlock(r *http.Request) (any, error) {
	_, chain, err := s.pChainPath(r)
	if err != nil {
		return nil, err
	}
	v, err := rest.PathParam(r, "blockId")
	if err != nil {
		return nil, err
	}
	id, err := ids.FromString(v)
	if err != nil {
		return nil, rest.BadRequest("blockId: must be a block ID (CB58), got %s", rest.Quote(v))
	}
	b, err := s.opts.Store.PBlockByID(r.Context(), chain, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, rest.NotFound("block %s not found on the P-Chain", id)
	}
	if err != nil {
		return nil, err
	}
	return pBlock(&b), nil
}

// listNodePBlocks answers GET /v1/networks/{network}/blockchains/{blockchainId}/nodes/{nodeId}/blocks:
// the P-Chain blocks nodeId proposed. The node's P-Chain builds its blocks
// without avalanchego's proposer VM, so no block has a proposer and the
// list is empty for every node ID (docs/data-api.md, "42. P-Chain blocks
// by proposer").
func (s *Server) listNodePBlocks(r *http.Request) (any, error) {
	network, chain, err := s.pChainPath(r)
	if err != nil {
		return nil, err
	}
	v, err := rest.PathParam(r, "nodeId")
	if err != nil {
		return nil, err
	}
	if _, err := avax.ParseNodeID(v); err != nil {
		return nil, rest.BadRequest("nodeId: must be a node ID, NodeID- and a CB58 ID, got %s", rest.Quote(v))
	}
	q := rest.Query(r)
	q.Int("pageSize", listPageSize)
	token := q.String("pageToken", "")
	_, _, _, err = s.timeRange(r.Context(), q, chain)
	if qerr := q.Err(); qerr != nil {
		return nil, qerr
	}
	if err != nil {
		return nil, err
	}
	if token != "" {
		// No page of this list has a next one: a token is another list's.
		return nil, rest.BadRequest("pageToken: not a valid page token for this request")
	}
	return ListPrimaryNetworkBlocksResponse{Blocks: []PrimaryNetworkBlock{}, ChainInfo: PrimaryChainInfo{ChainName: PChainID, Network: network}}, nil
}

// Blockchain is a blockchain as the data API shows it (docs/data-api.md,
// "43. Blockchains").
type Blockchain struct {
	CreateBlockTimestamp uint64  `json:"createBlockTimestamp"`
	CreateBlockNumber    string  `json:"createBlockNumber"`
	BlockchainID         string  `json:"blockchainId"`
	VMID                 string  `json:"vmId"`
	SubnetID             string  `json:"subnetId"`
	BlockchainName       string  `json:"blockchainName"`
	EVMChainID           *uint64 `json:"evmChainId,omitempty"`
	GenesisData          *string `json:"genesisData,omitempty"`
}

// ListBlockchainsResponse is the answer of the blockchain list.
type ListBlockchainsResponse struct {
	NextPageToken string       `json:"nextPageToken,omitempty"`
	Blockchains   []Blockchain `json:"blockchains"`
}

// apiBlockchain shows a blockchain: its genesis as text when it is, and
// the EVM chain ID its genesis names (config.chainId), if any.
func apiBlockchain(c *store.Blockchain) Blockchain {
	out := Blockchain{CreateBlockTimestamp: c.Created.Timestamp, CreateBlockNumber: strconv.FormatUint(c.Created.Block, 10),
		BlockchainID: c.ID.String(), VMID: c.VMID.String(), SubnetID: c.SubnetID.String(), BlockchainName: c.Name}
	if len(c.Genesis) > 0 && utf8.Valid(c.Genesis) {
		g := string(c.Genesis)
		out.GenesisData = &g
		var evm struct {
			Config struct {
				ChainID *uint64 `json:"chainId"`
			} `json:"config"`
		}
		if json.Unmarshal(c.Genesis, &evm) == nil {
			out.EVMChainID = evm.Config.ChainID
		}
	}
	return out
}

// Subnet is a subnet as the data API shows it (docs/data-api.md,
// "45. Subnets").
type Subnet struct {
	CreateBlockTimestamp        uint64                     `json:"createBlockTimestamp"`
	CreateBlockIndex            string                     `json:"createBlockIndex"`
	SubnetID                    string                     `json:"subnetId"`
	OwnerAddresses              []string                   `json:"ownerAddresses"`
	Threshold                   uint64                     `json:"threshold"`
	Locktime                    uint64                     `json:"locktime"`
	SubnetOwnershipInfo         SubnetOwnershipInfo        `json:"subnetOwnershipInfo"`
	IsL1                        bool                       `json:"isL1"`
	L1ConversionTransactionHash string                     `json:"l1ConversionTransactionHash,omitempty"`
	L1ValidatorManagerDetails   *L1ValidatorManagerDetails `json:"l1ValidatorManagerDetails,omitempty"`
	Blockchains                 []Blockchain               `json:"blockchains"`
}

// SubnetOwnershipInfo is a subnet's owner.
type SubnetOwnershipInfo struct {
	Locktime  uint64   `json:"locktime"`
	Threshold uint64   `json:"threshold"`
	Addresses []string `json:"addresses"`
}

// L1ValidatorManagerDetails names an L1's validator manager: the chain
// and the contract address of its conversion.
type L1ValidatorManagerDetails struct {
	BlockchainID    string `json:"blockchainId"`
	ContractAddress string `json:"contractAddress"`
}

// ListSubnetsResponse is the answer of the subnet list.
type ListSubnetsResponse struct {
	NextPageToken string   `json:"nextPageToken,omitempty"`
	Subnets       []Subnet `json:"subnets"`
}

// primaryChains returns the primary network's chains, which the P-Chain's
// genesis makes rather than a CreateChainTx: the node's chains of the
// registry that no CreateChainTx created, but the P-Chain itself, by ID,
// as created in block 0 at its time (docs/data-api.md, "43. Blockchains").
func (s *Server) primaryChains(ctx context.Context, p ids.ID) ([]store.Blockchain, error) {
	genesis, err := s.opts.Store.PBlock(ctx, p, 0)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil // not indexed yet
	}
	if err != nil {
		return nil, err
	}
	chains, err := s.opts.Host.Chains.List(ctx)
	if err != nil {
		return nil, rest.Unavailable("the node's chains cannot be listed").WithCause(err)
	}
	var out []store.Blockchain
	for _, c := range chains {
		if c.ID == p {
			continue
		}
		switch _, err := s.opts.Store.Blockchain(ctx, p, c.ID); {
		case err == nil:
			continue
		case !errors.Is(err, store.ErrNotFound):
			return nil, err
		}
		name := c.ID.String()
		if len(c.Aliases) > 0 {
			name = c.Aliases[0]
		}
		out = append(out, store.Blockchain{ID: c.ID, SubnetID: primaryNetworkID, VMID: c.VMID, Name: name,
			Created: store.Created{Timestamp: genesis.Timestamp}})
	}
	slices.SortFunc(out, func(a, b store.Blockchain) int { return a.ID.Compare(b.ID) })
	for i := range out {
		out[i].Created.TxIndex = uint64(i)
	}
	return out, nil
}

// merged reads one page of a creation-ordered list made of first (the
// primary network's entries, each created in block 0 at its TxIndex) then
// the store's list (created in blocks from 1 on), in the order p asks.
// Cursors are the store's: a creation place, block and index.
func merged[T any](p store.Page, first []T, place func(*T) store.Created, list func(store.Page) ([]T, []byte, error)) ([]T, []byte, error) {
	if p.Cursor != nil && len(p.Cursor) != 12 {
		return nil, nil, store.ErrBadCursor
	}
	inFirst := p.Cursor != nil && binary.BigEndian.Uint64(p.Cursor) == 0
	var at uint64
	if inFirst {
		at = uint64(binary.BigEndian.Uint32(p.Cursor[8:]))
	}
	cursorOf := func(c store.Created) []byte {
		return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, c.Block), uint32(c.TxIndex))
	}
	// fromFirst returns first's entries after the cursor in p's order.
	fromFirst := func() []T {
		var out []T
		for i := range first {
			j := i
			if p.Desc {
				j = len(first) - 1 - i
			}
			idx := place(&first[j]).TxIndex
			if inFirst && (!p.Desc && idx <= at || p.Desc && idx >= at) {
				continue
			}
			out = append(out, first[j])
		}
		return out
	}
	var out []T
	if !p.Desc {
		if p.Cursor == nil || inFirst {
			out = fromFirst()
		}
		if len(out) > p.Limit {
			return out[:p.Limit], cursorOf(place(&out[p.Limit-1])), nil
		}
		q := p
		q.Limit, q.Cursor = p.Limit-len(out)+1, nil
		if !inFirst {
			q.Cursor = p.Cursor
		}
		rest, _, err := list(q)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, rest...)
	} else {
		if !inFirst {
			q := p
			q.Limit++
			rest, _, err := list(q)
			if err != nil {
				return nil, nil, err
			}
			out = rest
		}
		if len(out) <= p.Limit {
			out = append(out, fromFirst()...)
		}
	}
	if len(out) > p.Limit {
		return out[:p.Limit], cursorOf(place(&out[p.Limit-1])), nil
	}
	return out, nil, nil
}

// networkList reads the query of the subnet and blockchain lists.
func (s *Server) networkList(r *http.Request, what string) (store.Page, ids.ID, string, error) {
	if _, err := s.opts.Network.PathParam(r, "network"); err != nil {
		return store.Page{}, ids.ID{}, "", err
	}
	q := rest.Query(r)
	p := store.Page{Limit: q.Int("pageSize", networkPageSize)}
	token := q.String("pageToken", "")
	order := q.Enum("sortOrder", "asc", "asc", "desc")
	if err := q.Err(); err != nil {
		return p, ids.ID{}, "", err
	}
	p.Desc = order == "desc"
	chain, ok := s.pChain(r.Context())
	if !ok {
		return p, ids.ID{}, "", rest.NotFound("%s are not available: this node runs no P-Chain", what)
	}
	scope := rest.Scope(what, order)
	cur, err := s.openToken(token, scope)
	p.Cursor = cur.C
	return p, chain, scope, err
}

// listBlockchains answers GET /v1/networks/{network}/blockchains: the
// primary network's chains, then the chains of CreateChainTx by creation.
func (s *Server) listBlockchains(r *http.Request) (any, error) {
	p, chain, scope, err := s.networkList(r, "blockchains")
	if err != nil {
		return nil, err
	}
	first, err := s.primaryChains(r.Context(), chain)
	if err != nil {
		return nil, err
	}
	list, next, err := merged(p, first, func(c *store.Blockchain) store.Created { return c.Created },
		func(p store.Page) ([]store.Blockchain, []byte, error) {
			return s.opts.Store.Blockchains(r.Context(), chain, p)
		})
	if err != nil {
		return nil, storeErr(err)
	}
	out := ListBlockchainsResponse{Blockchains: make([]Blockchain, len(list))}
	for i := range list {
		out.Blockchains[i] = apiBlockchain(&list[i])
	}
	out.NextPageToken, err = s.sealToken(scope, next, nil)
	return out, err
}

// getBlockchain answers GET /v1/networks/{network}/blockchains/{blockchainId}.
func (s *Server) getBlockchain(r *http.Request) (any, error) {
	if _, err := s.opts.Network.PathParam(r, "network"); err != nil {
		return nil, err
	}
	v, err := rest.PathParam(r, "blockchainId")
	if err != nil {
		return nil, err
	}
	id, err := ids.FromString(v)
	if err != nil {
		return nil, rest.BadRequest("blockchainId: must be a blockchain ID (CB58), got %s", rest.Quote(v))
	}
	chain, ok := s.pChain(r.Context())
	if !ok {
		return nil, rest.NotFound("blockchains are not available: this node runs no P-Chain")
	}
	c, err := s.opts.Store.Blockchain(r.Context(), chain, id)
	if errors.Is(err, store.ErrNotFound) {
		first, err := s.primaryChains(r.Context(), chain)
		if err != nil {
			return nil, err
		}
		for i := range first {
			if first[i].ID == id {
				return apiBlockchain(&first[i]), nil
			}
		}
		return nil, rest.NotFound("blockchain %s not found", id)
	}
	if err != nil {
		return nil, err
	}
	return apiBlockchain(&c), nil
}

// primarySubnet is the primary network as the subnet list shows it: no
// owner, created in block 0.
func (s *Server) primarySubnet(ctx context.Context, chain ids.ID) ([]store.Subnet, error) {
	genesis, err := s.opts.Store.PBlock(ctx, chain, 0)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return []store.Subnet{{ID: primaryNetworkID, Created: store.Created{Timestamp: genesis.Timestamp}}}, nil
}

// apiSubnet shows a subnet with its blockchains.
func (s *Server) apiSubnet(ctx context.Context, chain ids.ID, sn *store.Subnet) (Subnet, error) {
	owner := SubnetOwnershipInfo{Locktime: sn.Owner.Locktime, Threshold: sn.Owner.Threshold, Addresses: sn.Owner.Addresses}
	if owner.Addresses == nil {
		owner.Addresses = []string{}
	}
	out := Subnet{CreateBlockTimestamp: sn.Created.Timestamp, CreateBlockIndex: strconv.FormatUint(sn.Created.Block, 10),
		SubnetID: sn.ID.String(), OwnerAddresses: owner.Addresses, Threshold: owner.Threshold, Locktime: owner.Locktime,
		SubnetOwnershipInfo: owner, IsL1: sn.L1, Blockchains: []Blockchain{}}
	if sn.L1 {
		out.L1ConversionTransactionHash = sn.ConversionTx.String()
		out.L1ValidatorManagerDetails = &L1ValidatorManagerDetails{BlockchainID: sn.ManagerChain.String(),
			ContractAddress: "0x" + hex.EncodeToString(sn.ManagerAddress)}
	}
	var chains []store.Blockchain
	if sn.ID == primaryNetworkID {
		var err error
		if chains, err = s.primaryChains(ctx, chain); err != nil {
			return out, err
		}
	} else {
		p := store.Page{Limit: networkPageSize.Max}
		for {
			page, next, err := s.opts.Store.SubnetBlockchains(ctx, chain, sn.ID, p)
			if err != nil {
				return out, err
			}
			chains = append(chains, page...)
			if next == nil {
				break
			}
			p.Cursor = next
		}
	}
	for i := range chains {
		out.Blockchains = append(out.Blockchains, apiBlockchain(&chains[i]))
	}
	return out, nil
}

// listSubnets answers GET /v1/networks/{network}/subnets: the primary
// network, then the subnets by creation, each with its blockchains.
func (s *Server) listSubnets(r *http.Request) (any, error) {
	p, chain, scope, err := s.networkList(r, "subnets")
	if err != nil {
		return nil, err
	}
	first, err := s.primarySubnet(r.Context(), chain)
	if err != nil {
		return nil, err
	}
	list, next, err := merged(p, first, func(sn *store.Subnet) store.Created { return sn.Created },
		func(p store.Page) ([]store.Subnet, []byte, error) { return s.opts.Store.Subnets(r.Context(), chain, p) })
	if err != nil {
		return nil, storeErr(err)
	}
	out := ListSubnetsResponse{Subnets: make([]Subnet, len(list))}
	for i := range list {
		if out.Subnets[i], err = s.apiSubnet(r.Context(), chain, &list[i]); err != nil {
			return nil, err
		}
	}
	out.NextPageToken, err = s.sealToken(scope, next, nil)
	return out, err
}

// getSubnet answers GET /v1/networks/{network}/subnets/{subnetId}.
func (s *Server) getSubnet(r *http.Request) (any, error) {
	if _, err := s.opts.Network.PathParam(r, "network"); err != nil {
		return nil, err
	}
	v, err := rest.PathParam(r, "subnetId")
	if err != nil {
		return nil, err
	}
	id, err := ids.FromString(v)
	if err != nil {
		return nil, rest.BadRequest("subnetId: must be a subnet ID (CB58), got %s", rest.Quote(v))
	}
	chain, ok := s.pChain(r.Context())
	if !ok {
		return nil, rest.NotFound("subnets are not available: this node runs no P-Chain")
	}
	var sn store.Subnet
	if id == primaryNetworkID {
		first, err := s.primarySubnet(r.Context(), chain)
		if err != nil {
			return nil, err
		}
		if len(first) == 0 {
			return nil, rest.NotFound("subnet %s not found: the P-Chain is not indexed yet", id)
		}
		sn = first[0]
	} else if sn, err = s.opts.Store.Subnet(r.Context(), chain, id); errors.Is(err, store.ErrNotFound) {
		return nil, rest.NotFound("subnet %s not found", id)
	} else if err != nil {
		return nil, err
	}
	return s.apiSubnet(r.Context(), chain, &sn)
}
