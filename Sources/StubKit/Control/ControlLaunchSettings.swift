import Foundation

/// Where the app reports for runtime control: the runner's loopback port and the tokens that prove
/// to each side who is at the other end. Read from the environment only (launch arguments show in `ps`).
///
/// - `STUB_CONTROL=127.0.0.1:<port>`: the runner listens there; the app connects out at activation.
/// - `STUB_CONTROL_TOKEN=<32 hex digits>`: 128 random bits, sent first on the connection by the app.
/// - `STUB_CONTROL_RUNNER_TOKEN=<32 hex digits>`: 128 more, sent back by the runner once it has
///   checked the app's, so the app never takes steering from whatever else listens on the port.
package struct ControlLaunchSettings: Sendable, Hashable {
    package static let addressVariable = "STUB_CONTROL"
    package static let tokenVariable = "STUB_CONTROL_TOKEN"
    package static let runnerTokenVariable = "STUB_CONTROL_RUNNER_TOKEN"

    package var port: UInt16
    package var token: String
    package var runnerToken: String

    package init(port: UInt16, token: String, runnerToken: String) {
        self.port = port
        self.token = token
        self.runnerToken = runnerToken
    }

    /// A fresh token: 128 bits from the system's secure generator, as 32 hex digits.
    package static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// The settings in `environment`: `nil` when absent; problems name the variable and say what is wrong.
    package static func parse(environment: [String: String]) -> (ControlLaunchSettings?, [String]) {
        let address = environment[addressVariable], token = environment[tokenVariable], runnerToken = environment[runnerTokenVariable]
        guard address != nil || token != nil || runnerToken != nil else { return (nil, []) }
        guard let address, let token, let runnerToken else {
            let missing = [(addressVariable, address), (tokenVariable, token), (runnerTokenVariable, runnerToken)].filter { $0.1 == nil }.map(\.0)
            return (nil, ["environment variables \(addressVariable), \(tokenVariable) and \(runnerTokenVariable) go together; \(missing.joined(separator: " and ")) \(missing.count == 1 ? "is" : "are") missing"])
        }
        var problems: [String] = []
        // Loopback only: the app never reports to another machine, whatever the environment says.
        let parts = address.split(separator: ":", omittingEmptySubsequences: false)
        let port = parts.count == 2 ? UInt16(parts[1]) : nil
        if parts.count != 2 || !["127.0.0.1", "localhost"].contains(parts[0]) || port == nil || port == 0 {
            problems.append("environment variable \(addressVariable)=\(address): expected 127.0.0.1:<port> (runtime control is loopback only)")
        }
        for (variable, value) in [(tokenVariable, token), (runnerTokenVariable, runnerToken)] where value.count != 32 || !value.allSatisfy(\.isHexDigit) {
            problems.append("environment variable \(variable): expected 32 hex digits")
        }
        guard problems.isEmpty, let port else { return (nil, problems) }
        return (ControlLaunchSettings(port: port, token: token.lowercased(), runnerToken: runnerToken.lowercased()), [])
    }

    /// What to add to the app's launch environment.
    package var launchEnvironment: [String: String] {
        [Self.addressVariable: "127.0.0.1:\(port)", Self.tokenVariable: token, Self.runnerTokenVariable: runnerToken]
    }
}
