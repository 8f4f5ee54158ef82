// The data API's answers about one address of one chain, read through the
// official SDK as tests/dataapi-sdk (docs/data-api.md, "Conformance suite")
// reads them: it waits until the transactions list of ADDRESS on CHAIN_ID
// holds every hash of WANT (comma-separated), then prints, as JSON, that
// list's hashes and the chain's entry of /v1/chains. SDK_SUITE is the
// suite's directory, whose lib/dataapi.js and npm packages it uses.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const { NODE_URL, CHAIN_ID, ADDRESS, WANT, SDK_SUITE, TIMEOUT_MS } = process.env;
const { DataAPI } = await import(pathToFileURL(join(SDK_SUITE, "lib", "dataapi.js")).href);
const api = new DataAPI(NODE_URL);
const want = WANT.split(",").map((h) => h.toLowerCase());
const deadline = Date.now() + Number(TIMEOUT_MS);

for (;;) {
  let hashes = [];
  let why;
  try {
    const { items } = await api.pages("transactions", { chainId: CHAIN_ID, address: ADDRESS, sortOrder: "asc", pageSize: 100 });
    hashes = items.map((i) => i.nativeTransaction.txHash.toLowerCase());
    why = `it lists ${hashes.length} of ${want.length}`;
  } catch (e) {
    why = `${e.constructor.name}: ${e.message}`;
  }
  if (want.every((h) => hashes.includes(h))) {
    const chain = (await api.chains()).chains.find((c) => c.chainId === CHAIN_ID);
    console.log(JSON.stringify({ transactions: hashes, chain }));
    break;
  }
  if (Date.now() > deadline) {
    console.error(`the transactions of ${ADDRESS} on chain ${CHAIN_ID} are not all listed within ${TIMEOUT_MS} ms: ${why}`);
    process.exit(1);
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
}
