package api

import (
	"errors"
	"net/http"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/plugins/dataapi/indexer"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
	"github.com/chainhost/chainhost/sdk/rest"
)

// deployedContract returns a contract as the API shows it: ERC-20 with
// its decimals, UNKNOWN without a symbol (UnknownContract has none).
func deployedContract(k store.Contract) DeployedContract {
	d := DeployedContract{
		Name: k.Name, Address: address(k.Address), ErcType: k.Kind.String(), Symbol: k.Symbol,
		DeploymentDetails: &ContractDeploymentDetails{TxHash: hash(k.TxHash), DeployerAddress: address(k.Deployer)},
	}
	if k.Factory != (common.Address{}) {
		d.DeploymentDetails.DeployerContractAddress = address(k.Factory)
	}
	if k.Kind == store.KindERC20 {
		d.Decimals = &k.Decimals
	}
	if k.Kind == store.KindUnknown {
		d.Symbol = ""
	}
	return d
}

// contract reads the chain, the contract address and its deployment; an
// address the indexer saw no contract created at is a 404.
func (s *Server) contract(r *http.Request) (indexer.Chain, store.Contract, error) {
	c, addr, err := s.chainAddress(r)
	if err != nil {
		return c, store.Contract{}, err
	}
	k, err := s.opts.Store.Contract(r.Context(), c.Info.ID, addr)
	if errors.Is(err, store.ErrNotFound) {
		return c, k, rest.NotFound("no contract deployed at %s on chain %d%s", address(addr), c.EVMChainID, indexedTo(c))
	}
	return c, k, err
}

// getContractMetadata answers GET /v1/chains/{chainId}/addresses/{address}:
// the contract's standard, name, symbol, decimals and deployment.
func (s *Server) getContractMetadata(r *http.Request) (any, error) {
	_, k, err := s.contract(r)
	if err != nil {
		return nil, err
	}
	return deployedContract(k), nil
}

// getDeployment answers GET
// /v1/chains/{chainId}/contracts/{address}/transactions:getDeployment: the
// transaction that created the contract, directly or through a factory,
// as GET .../transactions/{txHash} answers it.
func (s *Server) getDeployment(r *http.Request) (any, error) {
	q := rest.Query(r)
	currency := q.Enum("currency", "usd", currencies...)
	if err := q.Err(); err != nil {
		return nil, err
	}
	c, k, err := s.contract(r)
	if err != nil {
		return nil, err
	}
	tx, err := s.opts.Store.Tx(r.Context(), c.Info.ID, k.TxHash)
	if err != nil {
		return nil, err // the contract's transaction is stored with it
	}
	return s.transaction(r, c, &tx, currency), nil
}

// ListTransfersResponse is the answer of tokens/{address}/transfers.
type ListTransfersResponse struct {
	NextPageToken string `json:"nextPageToken,omitempty"`
	Transfers     []any  `json:"transfers"`
}

// listTokenTransfers answers GET /v1/chains/{chainId}/tokens/{address}/transfers:
// the token's transfers, of its standard, newest first (the list
// parameters of the address lists).
func (s *Server) listTokenTransfers(r *http.Request) (any, error) {
	c, token, page, scope, err := s.addressList(r, "tokenTransfers")
	if err != nil {
		return nil, err
	}
	rows, next, err := s.opts.Store.TokenTransfers(r.Context(), c.Info.ID, token, page)
	if err != nil {
		return nil, storeErr(err)
	}
	out := ListTransfersResponse{Transfers: make([]any, 0, len(rows))}
	for _, x := range rows {
		at := place(x.Ref)
		switch {
		case len(x.ERC20) > 0:
			out.Transfers = append(out.Transfers, Erc20TransferItem{at, s.erc20Transfer(r, c, &x.ERC20[0])})
		case len(x.ERC721) > 0:
			out.Transfers = append(out.Transfers, Erc721TransferItem{at, erc721Transfer(&x.ERC721[0])})
		default:
			out.Transfers = append(out.Transfers, Erc1155TransferItem{at, erc1155Transfer(&x.ERC1155[0])})
		}
	}
	out.NextPageToken, err = s.sealToken(scope, next, nil)
	return out, err
}
