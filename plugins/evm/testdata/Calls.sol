// SPDX-License-Identifier: MIT
// Contracts whose transactions make every kind of call frame, for the tests
// of the EVM's indexer_getBlocks (plugins/evm/blocks_test.go).
// The bytecode in calls.json was produced by, in a temporary directory:
//   npm install solc@0.8.28 && npx solcjs --bin --abi --optimize Calls.sol (default EVM version cancun)
//   node -e 'const fs=require("fs"),o={};for(const c of ["Child","Reverter","Factory"]){const p="Calls_sol_"+c;
//     o[c]={abi:JSON.parse(fs.readFileSync(p+".abi")),bin:"0x"+fs.readFileSync(p+".bin","utf8")}};
//     fs.writeFileSync("calls.json",JSON.stringify(o,null,1)+"\n")'
// (the tests compile nothing).
pragma solidity 0.8.28;

contract Child {
    uint256 public x;

    event Set(uint256 value);

    constructor() payable {}

    function set(uint256 v) external payable {
        x = v;
        emit Set(v);
    }

    function get() external view returns (uint256) {
        return x;
    }

    // peek is get for DELEGATECALL from a payable function, which passes
    // its value on.
    function peek() external payable returns (uint256) {
        return x;
    }

    function fail() external payable {
        emit Set(666); // reverted: not in the receipt
        revert("child failed");
    }

    function burn() external {
        for (uint256 i = 0; ; i++) {
            x = i;
        }
    }

    function destroy(address payable to) external {
        selfdestruct(to);
    }
}

contract Reverter {
    constructor() {
        revert("no");
    }
}

contract Factory {
    Child public last;

    event Made(address child, bool create2);
    event Hashed(bytes32 hash);

    // make creates a child with CREATE and another with CREATE2, each
    // funded with half of the value.
    function make(bytes32 salt) external payable returns (address, address) {
        Child a = new Child{value: msg.value / 2}();
        Child b = new Child{value: msg.value - msg.value / 2, salt: salt}();
        emit Made(address(a), false);
        emit Made(address(b), true);
        last = b;
        return (address(a), address(b));
    }

    // mixed pays to (an account) a quarter of the value, calls the last
    // child with value, calls it again in a call that reverts and one that
    // runs out of gas (both caught), reads it with STATICCALL and
    // DELEGATECALL, calls a precompile, and tries a creation that fails.
    function mixed(address payable to) external payable {
        to.transfer(msg.value / 4);
        last.set{value: 1}(7);
        try last.fail{value: 1}() {} catch {}
        try last.burn{gas: 30000}() {} catch {}
        last.get();
        (bool ok, ) = address(last).delegatecall(abi.encodeCall(Child.peek, ()));
        require(ok, "delegatecall");
        emit Hashed(sha256(abi.encodePacked(to)));
        try new Reverter() {} catch {}
    }

    // boom calls the last child, then fails the whole transaction.
    function boom() external payable {
        last.set(1);
        revert("boom");
    }

    // destroy has the last child self-destruct, paying its balance to to.
    function destroy(address payable to) external {
        last.destroy(to);
    }
}
