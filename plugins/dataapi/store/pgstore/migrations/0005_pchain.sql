-- The P-Chain's records (docs/data-api.md, "The P-Chain"): its blocks by
-- height and by ID, and the blockchains and subnets its transactions
-- create, by creation (block, index in it) and by ID; the embedded
-- store's tPBlock ... tPSubnetChain. The P-Chain never reorganises, so
-- these tables are written without undo and have no undo_log trigger.
CREATE TABLE p_blocks (
    chain  integer NOT NULL,
    height bigint  NOT NULL,
    id     bytea   NOT NULL,
    record bytea   NOT NULL,
    PRIMARY KEY (chain, height)
);
CREATE UNIQUE INDEX p_blocks_id ON p_blocks (chain, id);

CREATE TABLE p_blockchains (
    chain    integer NOT NULL,
    block    bigint  NOT NULL,
    tx_index integer NOT NULL,
    id       bytea   NOT NULL,
    subnet   bytea   NOT NULL,
    record   bytea   NOT NULL,
    PRIMARY KEY (chain, block, tx_index)
);
CREATE UNIQUE INDEX p_blockchains_id ON p_blockchains (chain, id);
CREATE INDEX p_blockchains_subnet ON p_blockchains (chain, subnet, block, tx_index);

CREATE TABLE p_subnets (
    chain    integer NOT NULL,
    block    bigint  NOT NULL,
    tx_index integer NOT NULL,
    id       bytea   NOT NULL,
    record   bytea   NOT NULL,
    PRIMARY KEY (chain, block, tx_index)
);
CREATE UNIQUE INDEX p_subnets_id ON p_subnets (chain, id);
