-- The data API's schema (docs/data-api.md, "Scaling out"). Every list of
-- the API is read from one table whose primary key (or partial index)
-- orders its rows as the list does, so that a page is one index range
-- scan, in either direction. Records are the RLP encoding of the store
-- package's record types, the same bytes as the embedded store keeps;
-- the columns beside them are what pages are found and ordered by.
-- Addresses, hashes and token IDs are bytea (20, 32 and 32 big-endian
-- bytes, so that token IDs sort by value); block numbers are bigint; tx
-- indexes, log indexes, batch indexes and frames are integer.

-- Chains: a short tag for the rows, and how far each is indexed.
CREATE TABLE chains (
    tag            integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    blockchain_id  bytea   NOT NULL UNIQUE,
    evm_chain_id   bigint  NOT NULL DEFAULT 0,
    next_block     bigint  NOT NULL DEFAULT 0,
    cumulative_txs bigint  NOT NULL DEFAULT 0
);

-- The chains as the indexing node's registry describes them, in its
-- order, for the API-only instances, which run no chains.
CREATE TABLE chain_info (
    blockchain_id bytea       PRIMARY KEY,
    position      integer     NOT NULL,
    info          jsonb       NOT NULL,
    updated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE blocks (
    chain  integer NOT NULL,
    number bigint  NOT NULL,
    hash   bytea   NOT NULL,
    record bytea   NOT NULL,
    PRIMARY KEY (chain, number)
);
CREATE INDEX blocks_by_hash ON blocks (chain, hash);

-- Complete transactions (endpoint 9).
CREATE TABLE txs (
    chain  integer NOT NULL,
    hash   bytea   NOT NULL,
    record bytea   NOT NULL,
    PRIMARY KEY (chain, hash)
);

-- A transaction as each address that took part in it lists it (endpoint 1).
CREATE TABLE address_txs (
    chain    integer NOT NULL,
    address  bytea   NOT NULL,
    block    bigint  NOT NULL,
    tx_index integer NOT NULL,
    record   bytea   NOT NULL,
    PRIMARY KEY (chain, address, block, tx_index)
);

-- ERC-721 transfers, ERC-1155 transfers and internal transactions of each
-- sender and recipient (endpoints 2, 3 and 4).
CREATE TABLE address_erc721 (
    chain     integer NOT NULL,
    address   bytea   NOT NULL,
    block     bigint  NOT NULL,
    tx_index  integer NOT NULL,
    log_index integer NOT NULL,
    record    bytea   NOT NULL,
    PRIMARY KEY (chain, address, block, tx_index, log_index)
);
CREATE TABLE address_erc1155 (
    chain       integer NOT NULL,
    address     bytea   NOT NULL,
    block       bigint  NOT NULL,
    tx_index    integer NOT NULL,
    log_index   integer NOT NULL,
    batch_index integer NOT NULL,
    record      bytea   NOT NULL,
    PRIMARY KEY (chain, address, block, tx_index, log_index, batch_index)
);
CREATE TABLE address_internal (
    chain    integer NOT NULL,
    address  bytea   NOT NULL,
    block    bigint  NOT NULL,
    tx_index integer NOT NULL,
    frame    integer NOT NULL,
    record   bytea   NOT NULL,
    PRIMARY KEY (chain, address, block, tx_index, frame)
);

-- Every token a holder ever held, with its balance now (0 when none): the
-- partial index lists the non-zero ones, the primary key all of them for
-- balances at a past block.
CREATE TABLE erc20_holdings (
    chain   integer NOT NULL,
    holder  bytea   NOT NULL,
    token   bytea   NOT NULL,
    balance numeric NOT NULL,
    record  bytea   NOT NULL, -- the token
    PRIMARY KEY (chain, holder, token)
);
CREATE INDEX erc20_holdings_nonzero ON erc20_holdings (chain, holder, token) WHERE balance <> 0;

-- A holder's balance of a token after each block that changed it.
CREATE TABLE erc20_history (
    chain   integer NOT NULL,
    holder  bytea   NOT NULL,
    token   bytea   NOT NULL,
    block   bigint  NOT NULL,
    balance numeric NOT NULL,
    PRIMARY KEY (chain, holder, token, block)
);

CREATE TABLE erc1155_holdings (
    chain    integer NOT NULL,
    holder   bytea   NOT NULL,
    token    bytea   NOT NULL,
    token_id bytea   NOT NULL,
    balance  numeric NOT NULL,
    record   bytea   NOT NULL, -- the token and the NFT, balance 0
    PRIMARY KEY (chain, holder, token, token_id)
);
CREATE INDEX erc1155_holdings_nonzero ON erc1155_holdings (chain, holder, token, token_id) WHERE balance <> 0;

CREATE TABLE erc1155_history (
    chain    integer NOT NULL,
    holder   bytea   NOT NULL,
    token    bytea   NOT NULL,
    token_id bytea   NOT NULL,
    block    bigint  NOT NULL,
    balance  numeric NOT NULL,
    PRIMARY KEY (chain, holder, token, token_id, block)
);

-- What each holder owns now: ERC-721 tokens and non-zero ERC-1155
-- balances (endpoint 7).
CREATE TABLE collectibles (
    chain    integer NOT NULL,
    holder   bytea   NOT NULL,
    token    bytea   NOT NULL,
    token_id bytea   NOT NULL,
    record   bytea   NOT NULL,
    PRIMARY KEY (chain, holder, token, token_id)
);

-- Contract deployments of each deployer and factory (endpoint 8), and by
-- contract.
CREATE TABLE deployments (
    chain    integer NOT NULL,
    deployer bytea   NOT NULL,
    block    bigint  NOT NULL,
    tx_index integer NOT NULL,
    frame    integer NOT NULL,
    record   bytea   NOT NULL,
    PRIMARY KEY (chain, deployer, block, tx_index, frame)
);
CREATE TABLE contracts (
    chain   integer NOT NULL,
    address bytea   NOT NULL,
    record  bytea   NOT NULL,
    PRIMARY KEY (chain, address)
);

-- Token and NFT metadata, read once by the indexer.
CREATE TABLE tokens (
    chain   integer NOT NULL,
    address bytea   NOT NULL,
    record  bytea   NOT NULL,
    PRIMARY KEY (chain, address)
);
CREATE TABLE nfts (
    chain    integer NOT NULL,
    token    bytea   NOT NULL,
    token_id bytea   NOT NULL,
    record   bytea   NOT NULL,
    PRIMARY KEY (chain, token, token_id)
);

-- The chains each address took part in (endpoint 12).
CREATE TABLE address_chains (
    address bytea   NOT NULL,
    chain   integer NOT NULL,
    PRIMARY KEY (address, chain)
);

-- Copies of embedded stores (dataapi migrate): where each stands; an
-- unfinished one keeps the indexer from starting.
CREATE TABLE imports (
    source      text        PRIMARY KEY,
    position    bytea       NOT NULL,
    records     bigint      NOT NULL DEFAULT 0,
    started_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz
);
