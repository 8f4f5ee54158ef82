// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

// Contracts that make internal transactions for the data API conformance
// suite: creations by CREATE, CREATE2 and the CREATE3 pattern, calls that
// move value (some of them undone inside a successful transaction), and
// the frames the data API must not list (DELEGATECALL, STATICCALL).

/// What the factory creates: it keeps what it is sent.
contract Child {
    address public immutable maker = msg.sender;

    constructor() payable {}

    receive() external payable {}

    function noop() external payable {}
}

/// A contract whose creation always fails.
contract Failing {
    constructor() payable {
        revert("never");
    }
}

/// Refuses value, or forwards it and then fails: the forwarded call
/// succeeded but is undone with its caller.
contract Bouncer {
    receive() external payable {
        revert("refused");
    }

    function forwardThenFail(address payable to) external payable {
        (bool ok,) = to.call{value: msg.value}("");
        require(ok, "forward");
        revert("undone");
    }
}

/// The CREATE3 pattern's proxy: made with CREATE2, it makes the contract
/// with CREATE, so that the contract's address depends on the salt only.
contract Proxy {
    function make() external payable returns (address) {
        return address(new Child{value: msg.value}());
    }
}

interface IBalance {
    function balanceOf(address) external view returns (uint256);
}

contract Factory {
    event Made(address child);

    receive() external payable {}

    /// A CREATE that carries value.
    function make(uint256 value) external payable returns (address c) {
        c = address(new Child{value: value}());
        emit Made(c);
    }

    /// A CREATE2 that carries value.
    function make2(bytes32 salt, uint256 value) external payable returns (address c) {
        c = address(new Child{value: value, salt: salt}());
        emit Made(c);
    }

    /// CREATE3: a proxy made with CREATE2 makes the child with CREATE.
    function make3(bytes32 salt) external payable returns (address c) {
        c = new Proxy{salt: salt}().make{value: msg.value}();
        emit Made(c);
    }

    /// A CREATE2 that fails inside a successful transaction: nothing is
    /// deployed.
    function makeFailing(bytes32 salt) external payable {
        try new Failing{value: 1, salt: salt}() {
            revert("made");
        } catch {}
    }

    /// Value calls to several addresses.
    function pay(address payable[] calldata to, uint256[] calldata values) external payable {
        for (uint256 i = 0; i < to.length; i++) {
            (bool ok,) = to[i].call{value: values[i]}("");
            require(ok, "pay");
        }
    }

    /// Pays good, then tries to pay bad, which refuses: a reverted call in a
    /// successful transaction. Reads a balance on the way (a STATICCALL,
    /// which is not listed).
    function payOrKeep(address payable good, address payable bad, address token, uint256 value) external payable {
        (bool ok,) = good.call{value: value}("");
        require(ok, "good");
        IBalance(token).balanceOf(good);
        (ok,) = bad.call{value: value}("");
        require(!ok, "bad took it");
    }

    /// A value call that succeeds inside one that fails and is caught.
    function undone(Bouncer b, address payable to) external payable {
        try b.forwardThenFail{value: msg.value}(to) {
            revert("not undone");
        } catch {}
    }

    /// A CALLCODE that moves value (the callee's code runs here).
    function viaCallcode(address target, uint256 value) external payable {
        bool ok;
        assembly {
            ok := callcode(gas(), target, value, 0, 0, 0, 0)
        }
        require(ok, "callcode");
    }

    /// A DELEGATECALL, which carries this call's value but moves none: not
    /// listed.
    function delegated(address target) external payable {
        (bool ok,) = target.delegatecall(abi.encodeCall(Child.noop, ()));
        require(ok, "delegatecall");
    }

    /// Always fails: the transaction's status is 0.
    function boom() external payable {
        revert("boom");
    }
}
