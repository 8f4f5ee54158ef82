// The data API through the official SDK, @avalanche-sdk/chainkit, as a
// client application uses it: response validation on (the SDK always
// validates; nothing here catches its ResponseValidationError), telemetry
// off, the node's URL passed as serverURL on every call (the SDK's data
// methods take the server from the call, not from the client's options).
import { Avalanche } from "@avalanche-sdk/chainkit";

/**
 * Makes every fetch of this process that is not for the node (or one of
 * the others, the suite's own: an external chain's RPC) fail, and
 * records it: the SDK's telemetry (on unless enableTelemetry is false)
 * and a call without serverURL (which goes to the hosted API) cannot pass
 * unnoticed. Returns the refused URLs and a count of the data API's
 * requests.
 */
export function guardFetch(nodeURL, others = []) {
  const origins = new Set([nodeURL, ...others].map((u) => new URL(u).origin));
  const real = globalThis.fetch;
  const seen = { refused: [], dataRequests: 0 };
  globalThis.fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!origins.has(url.origin)) {
      seen.refused.push(url.href);
      return Promise.reject(new Error(`the suite sends nothing outside the node: ${url.href}`));
    }
    if (url.pathname.startsWith("/v1/")) {
      seen.dataRequests++;
    }
    return real(input, init);
  };
  return seen;
}

/** The SDK's options for the suite; extra adds to them. */
export function sdkOptions(extra = {}) {
  // No retries: an error of the node must show as it is, not be retried.
  return { enableTelemetry: false, retryConfig: { strategy: "none" }, ...extra };
}

/**
 * The EVM endpoints of docs/data-api.md. Lists answer every page through
 * the SDK's page iterator (which follows nextPageToken).
 */
export class DataAPI {
  constructor(nodeURL, sdk = new Avalanche(sdkOptions())) {
    this.sdk = sdk;
    this.call = { serverURL: nodeURL };
    const evm = sdk.data.evm;
    /** Each list: the SDK method and the member holding its items. */
    this.lists = {
      transactions: [(r, o) => evm.address.transactions.list(r, o), "transactions"],
      erc721: [(r, o) => evm.address.transactions.listErc721(r, o), "transactions"],
      erc1155: [(r, o) => evm.address.transactions.listErc1155(r, o), "transactions"],
      internals: [(r, o) => evm.address.transactions.listInternal(r, o), "transactions"],
      erc20Balances: [(r, o) => evm.address.balances.listErc20(r, o), "erc20TokenBalances"],
      erc1155Balances: [(r, o) => evm.address.balances.listErc1155(r, o), "erc1155TokenBalances"],
      collectibles: [(r, o) => evm.address.balances.listCollectibles(r, o), "collectibleBalances"],
      deployments: [(r, o) => evm.address.contracts.listDeployments(r, o), "contracts"],
      blocks: [(r, o) => evm.blocks.listLatest(r, o), "blocks"],
      allBlocks: [(r, o) => evm.chains.listAllLatestBlocks(r, o), "blocks"],
      tokenTransfers: [(r, o) => evm.contracts.listTransfers(r, o), "transfers"],
      nftTokens: [(r, o) => sdk.data.nfts.list(r, o), "tokens"],
      erc721Balances: [(r, o) => evm.address.balances.listErc721(r, o), "erc721TokenBalances"],
      latestBlocksAllChains: [(r, o) => evm.blocks.listLatestAllChains(r, o), "blocks"],
      chainTransactions: [(r, o) => evm.transactions.listLatest(r, o), "transactions"],
      allTransactions: [(r, o) => evm.chains.listAllLatestTransactions(r, o), "transactions"],
      latestTransactionsAllChains: [(r, o) => evm.transactions.listLatestAllChains(r, o), "transactions"],
      native: [(r, o) => evm.address.transactions.listNative(r, o), "transactions"],
      erc20: [(r, o) => evm.address.transactions.listErc20(r, o), "transactions"],
    };
  }

  /**
   * Reads a list to its end; returns its pages (the answers, each with
   * its nextPageToken when it has one) and their items in order.
   */
  async pages(list, request) {
    const [method, member] = this.lists[list];
    const pages = [];
    for await (const page of await method(request, this.call)) {
      pages.push(page.result);
    }
    return { pages, items: pages.flatMap((p) => p[member]) };
  }

  /** Endpoint 9. */
  async transaction(chainId, txHash) {
    return this.sdk.data.evm.transactions.get({ chainId, txHash }, this.call);
  }

  /** Endpoint 10. */
  async chains(request = {}) {
    return this.sdk.data.evm.chains.list(request, this.call);
  }

  /** Endpoint 11. */
  async block(chainId, blockId) {
    return this.sdk.data.evm.blocks.get({ chainId, blockId }, this.call);
  }

  /** Endpoint 14. */
  async chain(chainId) {
    return this.sdk.data.evm.chains.get({ chainId }, this.call);
  }

  /** Endpoint 29: a block's transactions, one answer (the SDK does not page it). */
  async blockTransactions(chainId, blockId, request = {}) {
    return this.sdk.data.evm.blocks.listTransactions({ chainId, blockId, ...request }, this.call);
  }

  /** Endpoint 35. */
  async nativeBalance(request) {
    return this.sdk.data.evm.address.balances.getNative(request, this.call);
  }

  /** Endpoint 12. */
  async addressChains(address) {
    return this.sdk.data.evm.address.chains.list({ address }, this.call);
  }

  /** Endpoint 19. */
  async contractMetadata(chainId, address) {
    return this.sdk.data.evm.contracts.getMetadata({ chainId, address }, this.call);
  }

  /** Endpoint 20. */
  async deployment(chainId, address) {
    return this.sdk.data.evm.contracts.getDeploymentTransaction({ chainId, address }, this.call);
  }

  /** Endpoint 23. */
  async nft(chainId, address, tokenId) {
    return this.sdk.data.nfts.get({ chainId, address, tokenId }, this.call);
  }

  /** Endpoint 24. */
  async reindex(chainId, address, tokenId) {
    return this.sdk.data.nfts.reindex({ chainId, address, tokenId }, this.call);
  }

  /** Endpoint 26: endpoint 12 under the path of getAddressChains. */
  async addressChainsByChains(address) {
    return this.sdk.data.evm.chains.getAddressChains({ address }, this.call);
  }
}
