package api

import (
	"encoding/hex"
	"math/big"
	"strconv"

	"github.com/ethereum/go-ethereum/common"

	"github.com/chainhost/chainhost/plugins/dataapi/methods"
	"github.com/chainhost/chainhost/plugins/dataapi/store"
)

// The answers' JSON, as the contract (reference/openapi/data-api.json)
// types it: quantities as decimal strings, counts and timestamps as
// numbers, optional members left out when empty (omitempty), required
// arrays always present.

// RichAddress is an address entity.
type RichAddress struct {
	Address string `json:"address"`
}

// Money is a price or a value in a currency.
type Money struct {
	CurrencyCode string  `json:"currencyCode"`
	Value        float64 `json:"value"`
}

// Method is what a transaction called.
type Method struct {
	CallType   string `json:"callType"`
	MethodHash string `json:"methodHash"`
	MethodName string `json:"methodName,omitempty"`
}

// NativeTransaction is a transaction in a list.
type NativeTransaction struct {
	BlockNumber    string      `json:"blockNumber"`
	BlockTimestamp uint64      `json:"blockTimestamp"`
	BlockHash      string      `json:"blockHash"`
	ChainID        string      `json:"chainId"`
	BlockIndex     uint64      `json:"blockIndex"`
	TxHash         string      `json:"txHash"`
	TxStatus       string      `json:"txStatus"`
	TxType         uint64      `json:"txType"`
	GasLimit       string      `json:"gasLimit"`
	GasUsed        string      `json:"gasUsed"`
	GasPrice       string      `json:"gasPrice"`
	Nonce          string      `json:"nonce"`
	From           RichAddress `json:"from"`
	To             RichAddress `json:"to"`
	Method         *Method     `json:"method,omitempty"`
	Value          string      `json:"value"`
}

// FullNativeTransaction is the transaction of the single-transaction
// answer.
type FullNativeTransaction struct {
	NativeTransaction
	Input                string `json:"input"`
	BaseFeePerGas        string `json:"baseFeePerGas"`
	MaxFeePerGas         string `json:"maxFeePerGas,omitempty"`
	MaxPriorityFeePerGas string `json:"maxPriorityFeePerGas,omitempty"`
}

// Erc20Token is an ERC-20 token in a transfer.
type Erc20Token struct {
	Address  string `json:"address"`
	Name     string `json:"name"`
	Symbol   string `json:"symbol"`
	Decimals uint64 `json:"decimals"`
	ErcType  string `json:"ercType"`
	Price    *Money `json:"price,omitempty"`
}

// NFTMetadata is the metadata an ERC-721 and an ERC-1155 token share.
type NFTMetadata struct {
	IndexStatus                  string  `json:"indexStatus"`
	MetadataLastUpdatedTimestamp *uint64 `json:"metadataLastUpdatedTimestamp,omitempty"`
	Name                         string  `json:"name,omitempty"`
	Symbol                       string  `json:"symbol,omitempty"`
	ImageURI                     string  `json:"imageUri,omitempty"`
	Description                  string  `json:"description,omitempty"`
	AnimationURI                 string  `json:"animationUri,omitempty"`
	ExternalURL                  string  `json:"externalUrl,omitempty"`
	Background                   string  `json:"background,omitempty"`
}

// Erc721Metadata is an ERC-721 token's metadata.
type Erc721Metadata struct {
	NFTMetadata
	Attributes string `json:"attributes,omitempty"`
}

// Erc1155Metadata is an ERC-1155 token's metadata.
type Erc1155Metadata struct {
	NFTMetadata
	Decimals   *uint64 `json:"decimals,omitempty"`
	Properties string  `json:"properties,omitempty"`
}

// Erc721Token is an ERC-721 token in a transfer.
type Erc721Token struct {
	Address      string         `json:"address"`
	Name         string         `json:"name"`
	Symbol       string         `json:"symbol"`
	ErcType      string         `json:"ercType"`
	TokenID      string         `json:"tokenId"`
	TokenURI     string         `json:"tokenUri"`
	Metadata     Erc721Metadata `json:"metadata"`
	OwnerAddress string         `json:"ownerAddress,omitempty"`
}

// Erc1155Token is an ERC-1155 token in a transfer.
type Erc1155Token struct {
	Address  string          `json:"address"`
	ErcType  string          `json:"ercType"`
	TokenID  string          `json:"tokenId"`
	TokenURI string          `json:"tokenUri"`
	Metadata Erc1155Metadata `json:"metadata"`
}

// Erc20Transfer is an ERC-20 transfer of a transaction.
type Erc20Transfer struct {
	From       RichAddress `json:"from"`
	To         RichAddress `json:"to"`
	LogIndex   uint64      `json:"logIndex"`
	Value      string      `json:"value"`
	Erc20Token Erc20Token  `json:"erc20Token"`
}

// Erc721Transfer is an ERC-721 transfer of a transaction.
type Erc721Transfer struct {
	From        RichAddress `json:"from"`
	To          RichAddress `json:"to"`
	LogIndex    uint64      `json:"logIndex"`
	Erc721Token Erc721Token `json:"erc721Token"`
}

// Erc1155Transfer is an ERC-1155 transfer of a transaction.
type Erc1155Transfer struct {
	From         RichAddress  `json:"from"`
	To           RichAddress  `json:"to"`
	LogIndex     uint64       `json:"logIndex"`
	Value        string       `json:"value"`
	Erc1155Token Erc1155Token `json:"erc1155Token"`
}

// InternalTransaction is an internal transaction of a transaction.
type InternalTransaction struct {
	From           RichAddress `json:"from"`
	To             RichAddress `json:"to"`
	InternalTxType string      `json:"internalTxType"`
	Value          string      `json:"value"`
	IsReverted     bool        `json:"isReverted"`
	GasUsed        string      `json:"gasUsed"`
	GasLimit       string      `json:"gasLimit"`
}

// ItemPlace places a standalone list item.
type ItemPlace struct {
	BlockNumber    string `json:"blockNumber"`
	BlockTimestamp uint64 `json:"blockTimestamp"`
	BlockHash      string `json:"blockHash"`
	TxHash         string `json:"txHash"`
}

// Erc721TransferItem is an item of transactions:listErc721.
type Erc721TransferItem struct {
	ItemPlace
	Erc721Transfer
}

// Erc1155TransferItem is an item of transactions:listErc1155.
type Erc1155TransferItem struct {
	ItemPlace
	Erc1155Transfer
}

// InternalTransactionItem is an item of transactions:listInternals.
type InternalTransactionItem struct {
	ItemPlace
	InternalTransaction
}

// TransactionDetails is an item of an address's transaction list.
type TransactionDetails struct {
	NativeTransaction    NativeTransaction     `json:"nativeTransaction"`
	Erc20Transfers       []Erc20Transfer       `json:"erc20Transfers,omitempty"`
	Erc721Transfers      []Erc721Transfer      `json:"erc721Transfers,omitempty"`
	Erc1155Transfers     []Erc1155Transfer     `json:"erc1155Transfers,omitempty"`
	InternalTransactions []InternalTransaction `json:"internalTransactions,omitempty"`
}

// NetworkToken is a chain's native token.
type NetworkToken struct {
	Name        string `json:"name"`
	Symbol      string `json:"symbol"`
	Decimals    uint64 `json:"decimals"`
	LogoURI     string `json:"logoUri,omitempty"`
	Description string `json:"description,omitempty"`
}

// NetworkTokenDetails is the native token with its prices.
type NetworkTokenDetails struct {
	NetworkToken    NetworkToken `json:"networkToken"`
	CurrentPrice    *Money       `json:"currentPrice,omitempty"`
	HistoricalPrice *Money       `json:"historicalPrice,omitempty"`
}

// GetTransactionResponse is the single-transaction answer.
type GetTransactionResponse struct {
	Erc20Transfers       []Erc20Transfer       `json:"erc20Transfers,omitempty"`
	Erc721Transfers      []Erc721Transfer      `json:"erc721Transfers,omitempty"`
	Erc1155Transfers     []Erc1155Transfer     `json:"erc1155Transfers,omitempty"`
	InternalTransactions []InternalTransaction `json:"internalTransactions,omitempty"`
	NetworkTokenDetails  NetworkTokenDetails   `json:"networkTokenDetails"`
	NativeTransaction    FullNativeTransaction `json:"nativeTransaction"`
}

// NativeTokenBalance is an address's native balance.
type NativeTokenBalance struct {
	Name         string `json:"name"`
	Symbol       string `json:"symbol"`
	Decimals     uint64 `json:"decimals"`
	LogoURI      string `json:"logoUri,omitempty"`
	ChainID      string `json:"chainId"`
	Price        *Money `json:"price,omitempty"`
	Balance      string `json:"balance"`
	BalanceValue *Money `json:"balanceValue,omitempty"`
}

// Erc20TokenBalance is an item of balances:listErc20. TokenReputation is
// always present: the contract requires it and allows null, which is what
// it is here (no reputation source).
type Erc20TokenBalance struct {
	Erc20Token
	ChainID         string  `json:"chainId"`
	Balance         string  `json:"balance"`
	BalanceValue    *Money  `json:"balanceValue,omitempty"`
	TokenReputation *string `json:"tokenReputation"`
}

// Erc1155TokenBalance is an item of balances:listErc1155 and of
// balances:listCollectibles.
type Erc1155TokenBalance struct {
	Erc1155Token
	ChainID string `json:"chainId"`
	Balance string `json:"balance"`
}

// erc721TokenBalance is an ERC-721 item of balances:listCollectibles.
type erc721TokenBalance struct {
	Erc721Token
	ChainID string `json:"chainId"`
}

// ContractDeploymentDetails says who deployed a contract.
type ContractDeploymentDetails struct {
	TxHash                  string `json:"txHash"`
	DeployerAddress         string `json:"deployerAddress"`
	DeployerContractAddress string `json:"deployerContractAddress,omitempty"`
}

// DeployedContract is an item of contracts/{address}/deployments: the
// contract's Erc20Contract, Erc721Contract, Erc1155Contract or
// UnknownContract shape, told apart by ErcType (Decimals only for ERC-20).
type DeployedContract struct {
	Name              string                     `json:"name,omitempty"`
	Address           string                     `json:"address"`
	DeploymentDetails *ContractDeploymentDetails `json:"deploymentDetails,omitempty"`
	ErcType           string                     `json:"ercType"`
	Symbol            string                     `json:"symbol,omitempty"`
	Decimals          *uint64                    `json:"decimals,omitempty"`
}

// Block is the answer of blocks/{blockId}.
type Block struct {
	ChainID                string `json:"chainId"`
	BlockNumber            string `json:"blockNumber"`
	BlockTimestamp         uint64 `json:"blockTimestamp"`
	BlockHash              string `json:"blockHash"`
	TxCount                uint64 `json:"txCount"`
	BaseFee                string `json:"baseFee"`
	GasUsed                string `json:"gasUsed"`
	GasLimit               string `json:"gasLimit"`
	GasCost                string `json:"gasCost"`
	ParentHash             string `json:"parentHash"`
	FeesSpent              string `json:"feesSpent"`
	CumulativeTransactions string `json:"cumulativeTransactions"`
}

// UtilityAddresses are a chain's well-known contracts.
type UtilityAddresses struct {
	Multicall string `json:"multicall,omitempty"`
}

// ChainInfo describes a chain.
type ChainInfo struct {
	ChainID          string            `json:"chainId"`
	Status           string            `json:"status"`
	ChainName        string            `json:"chainName"`
	Description      string            `json:"description"`
	PlatformChainID  string            `json:"platformChainId,omitempty"`
	SubnetID         string            `json:"subnetId,omitempty"`
	VMID             string            `json:"vmId,omitempty"`
	VMName           string            `json:"vmName"`
	ExplorerURL      string            `json:"explorerUrl,omitempty"`
	RPCURL           string            `json:"rpcUrl"`
	WSURL            string            `json:"wsUrl,omitempty"`
	IsTestnet        bool              `json:"isTestnet"`
	UtilityAddresses *UtilityAddresses `json:"utilityAddresses,omitempty"`
	NetworkToken     NetworkToken      `json:"networkToken"`
	ChainLogoURI     string            `json:"chainLogoUri,omitempty"`
	Private          bool              `json:"private"`
	EnabledFeatures  []string          `json:"enabledFeatures"`
	// InternalTransactionsIndexed is false for an external chain whose
	// node offers no tracer (docs/data-api.md, "Indexing a chain of
	// another node"); absent for the others, which always have them.
	InternalTransactionsIndexed *bool `json:"internalTransactionsIndexed,omitempty"`
}

// address spells an address as the contract does: EIP-55 mixed case.
func address(a common.Address) string { return a.Hex() }

// rich returns an address entity.
func rich(a common.Address) RichAddress { return RichAddress{Address: address(a)} }

// hash spells a hash: 0x and 64 lowercase hex digits.
func hash(h common.Hash) string { return h.Hex() }

// dec spells a quantity as decimal digits.
func dec(n uint64) string { return strconv.FormatUint(n, 10) }

// decBig spells a big quantity as decimal digits.
func decBig(n *big.Int) string {
	if n == nil {
		return "0"
	}
	return n.String()
}

// Transaction method call types: the contract's TransactionMethodType.
const (
	callNativeTransfer = "NATIVE_TRANSFER"
	callContract       = "CONTRACT_CALL"
	callCreation       = "CONTRACT_CREATION"
)

// method returns what tx called: a creation, a native transfer (no input)
// or a contract call with its 4-byte selector and, for a selector of the
// built-in table, its signature.
func method(tx *store.Tx) *Method {
	switch {
	case tx.Creation:
		return &Method{CallType: callCreation, MethodHash: "", MethodName: "Contract Created"}
	case len(tx.Method) == 0:
		return &Method{CallType: callNativeTransfer, MethodHash: "", MethodName: "Native Transfer"}
	}
	m := &Method{CallType: callContract, MethodHash: "0x" + hex.EncodeToString(tx.Method)}
	m.MethodName, _ = methods.Name(tx.Method)
	return m
}

// nativeTx returns tx's native transaction.
func nativeTx(tx *store.Tx, evmChainID uint64) NativeTransaction {
	status := "0"
	if tx.Success {
		status = "1"
	}
	return NativeTransaction{
		BlockNumber: dec(tx.BlockNumber), BlockTimestamp: tx.BlockTimestamp, BlockHash: hash(tx.BlockHash),
		ChainID: dec(evmChainID), BlockIndex: tx.Index, TxHash: hash(tx.Hash), TxStatus: status, TxType: tx.Type,
		GasLimit: dec(tx.GasLimit), GasUsed: dec(tx.GasUsed), GasPrice: decBig(tx.GasPrice), Nonce: dec(tx.Nonce),
		From: rich(tx.From), To: rich(tx.To), Method: method(tx), Value: decBig(tx.Value),
	}
}

// nftMetadata returns the metadata an ERC-721 and an ERC-1155 token share.
func nftMetadata(m store.NFTMetadata) NFTMetadata {
	out := NFTMetadata{
		IndexStatus: status(m.Status), Name: m.Name, Symbol: m.Symbol, ImageURI: m.ImageURI,
		Description: m.Description, AnimationURI: m.AnimationURI, ExternalURL: m.ExternalURL,
		Background: m.Background,
	}
	if m.UpdatedAt > 0 {
		out.MetadataLastUpdatedTimestamp = &m.UpdatedAt
	}
	return out
}

// erc721Metadata returns an ERC-721 token's metadata.
func erc721Metadata(m store.NFTMetadata) Erc721Metadata {
	return Erc721Metadata{NFTMetadata: nftMetadata(m), Attributes: m.Attributes}
}

// erc1155Metadata returns an ERC-1155 token's metadata.
func erc1155Metadata(m store.NFTMetadata) Erc1155Metadata {
	out := Erc1155Metadata{NFTMetadata: nftMetadata(m), Properties: m.Properties}
	if m.HasDecimals {
		out.Decimals = &m.Decimals
	}
	return out
}

// status returns a metadata status, UNKNOWN when none was recorded.
func status(s string) string {
	if s == "" {
		return "UNKNOWN"
	}
	return s
}

// erc20Token returns an ERC-20 token at price p (nil: none).
func erc20Token(tok store.Token, p *Money) Erc20Token {
	return Erc20Token{
		Address: address(tok.Address), Name: tok.Name, Symbol: tok.Symbol, Decimals: tok.Decimals,
		ErcType: store.KindERC20.String(), Price: p,
	}
}

// erc721Token returns the token of an ERC-721 transfer.
func erc721Token(tok store.Token, nft store.NFT) Erc721Token {
	return Erc721Token{
		Address: address(tok.Address), Name: tok.Name, Symbol: tok.Symbol, ErcType: store.KindERC721.String(),
		TokenID: decBig(nft.TokenID), TokenURI: nft.URI, Metadata: erc721Metadata(nft.Metadata),
	}
}

// erc1155Token returns the token of an ERC-1155 transfer.
func erc1155Token(tok store.Token, nft store.NFT) Erc1155Token {
	return Erc1155Token{
		Address: address(tok.Address), ErcType: store.KindERC1155.String(),
		TokenID: decBig(nft.TokenID), TokenURI: nft.URI, Metadata: erc1155Metadata(nft.Metadata),
	}
}

// erc721Transfer returns an ERC-721 transfer.
func erc721Transfer(x *store.ERC721Transfer) Erc721Transfer {
	return Erc721Transfer{From: rich(x.From), To: rich(x.To), LogIndex: x.LogIndex, Erc721Token: erc721Token(x.Token, x.NFT)}
}

// erc1155Transfer returns an ERC-1155 transfer.
func erc1155Transfer(x *store.ERC1155Transfer) Erc1155Transfer {
	return Erc1155Transfer{From: rich(x.From), To: rich(x.To), LogIndex: x.LogIndex, Value: decBig(x.Value), Erc1155Token: erc1155Token(x.Token, x.NFT)}
}

// internalTx returns an internal transaction.
func internalTx(x *store.InternalTx) InternalTransaction {
	return InternalTransaction{
		From: rich(x.From), To: rich(x.To), InternalTxType: x.Type, Value: decBig(x.Value),
		IsReverted: x.Reverted, GasUsed: dec(x.GasUsed), GasLimit: dec(x.GasLimit),
	}
}

// place returns where a standalone item is.
func place(r store.TxRef) ItemPlace {
	return ItemPlace{BlockNumber: dec(r.BlockNumber), BlockTimestamp: r.BlockTimestamp, BlockHash: hash(r.BlockHash), TxHash: hash(r.TxHash)}
}
