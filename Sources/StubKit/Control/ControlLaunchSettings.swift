import Foundation

/// Where the app reports for runtime control: the runner's loopback port and the token that proves
/// the runner launched this app. Read from the environment only (launch arguments show in `ps`).
///
/// - `STUB_CONTROL=127.0.0.1:<port>`: the runner listens there; the app connects out at activation.
/// - `STUB_CONTROL_TOKEN=<32 hex digits>`: 128 random bits, sent first on the connection.
package struct ControlLaunchSettings: Sendable, Hashable {
    package static let addressVariable = "STUB_CONTROL"
    package static let tokenVariable = "STUB_CONTROL_TOKEN"

    package var port: UInt16
    package var token: String

    package init(port: UInt16, token: String) {
        self.port = port
        self.token = token
    }

    /// A fresh token: 128 bits from the system's secure generator, as 32 hex digits.
    package static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// The settings in `environment`: `nil` when absent; problems name the variable and say what is wrong.
    package static func parse(environment: [String: String]) -> (ControlLaunchSettings?, [String]) {
        let address = environment[addressVariable], token = environment[tokenVariable]
        guard address != nil || token != nil else { return (nil, []) }
        guard let address, let token else {
            return (nil, ["environment variables \(addressVariable) and \(tokenVariable) go together; only \(address == nil ? tokenVariable : addressVariable) is set"])
        }
        var problems: [String] = []
        // Loopback only: the app never reports to another machine, whatever the environment says.
        let parts = address.split(separator: ":", omittingEmptySubsequences: false)
        let port = parts.count == 2 ? UInt16(parts[1]) : nil
        if parts.count != 2 || !["127.0.0.1", "localhost"].contains(parts[0]) || port == nil || port == 0 {
            problems.append("environment variable \(addressVariable)=\(address): expected 127.0.0.1:<port> (runtime control is loopback only)")
        }
        if token.count != 32 || !token.allSatisfy(\.isHexDigit) {
            problems.append("environment variable \(tokenVariable): expected 32 hex digits")
        }
        guard problems.isEmpty, let port else { return (nil, problems) }
        return (ControlLaunchSettings(port: port, token: token.lowercased()), [])
    }

    /// What to add to the app's launch environment.
    package var launchEnvironment: [String: String] {
        [Self.addressVariable: "127.0.0.1:\(port)", Self.tokenVariable: token]
    }
}
