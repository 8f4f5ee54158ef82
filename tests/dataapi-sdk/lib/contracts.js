// Compiles the suite's Solidity sources with the solc package pinned in
// the lockfile (it bundles the compiler: nothing is downloaded). Compiling
// at run time takes about a second and leaves no built artifacts to go
// stale beside their sources.
import { readFileSync, readdirSync } from "node:fs";
import solc from "solc";

const dir = new URL("../contracts/", import.meta.url);

/**
 * Compiles every contract of contracts/*.sol.
 * @returns {Record<string, {abi: object[], bytecode: `0x${string}`}>} by contract name
 */
export function compileContracts() {
  const sources = {};
  for (const f of readdirSync(dir).filter((f) => f.endsWith(".sol"))) {
    sources[f] = { content: readFileSync(new URL(f, dir), "utf8") };
  }
  const input = {
    language: "Solidity",
    sources,
    settings: {
      evmVersion: "cancun", // the local C-Chain's fork (configs/default.yaml)
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (out.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) {
    throw new Error(`solc ${solc.version()}:\n${errors.map((e) => e.formattedMessage).join("\n")}`);
  }
  const contracts = {};
  for (const file of Object.values(out.contracts)) {
    for (const [name, c] of Object.entries(file)) {
      contracts[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
    }
  }
  return contracts;
}
