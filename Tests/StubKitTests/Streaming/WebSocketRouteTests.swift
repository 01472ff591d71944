import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StubKit
import StubKitTesting

/// Where an app's WebSockets go under test: to the local stub server the runner names, refused with
/// the kill switch, unchanged in production; and StubURLProtocol never takes a WebSocket.
@Suite
struct WebSocketRouteTests {
    static let chat = URL(string: "wss://Chat.Example.test/orders/1/chat?token=a%2Bb")!

    @Test("with a server named, a ws(s) URL goes to the server's host-prefixed path, query kept")
    func routedToServer() throws {
        let overrides = try LaunchOverrides(arguments: ["app", "STUB_WEBSOCKET_SERVER=http://127.0.0.1:8123"], environment: [:])
        #expect(overrides.webSocketURL(for: Self.chat).absoluteString == "ws://127.0.0.1:8123/chat.example.test/orders/1/chat?token=a%2Bb")
        #expect(overrides.webSocketURL(for: URL(string: "ws://chat.example.test:9000/")!).absoluteString == "ws://127.0.0.1:8123/chat.example.test:9000/")
        #expect(overrides.isTestLaunch)
        // Not a WebSocket-able URL: left alone.
        #expect(overrides.webSocketURL(for: URL(string: "file:///tmp/x")!).absoluteString == "file:///tmp/x")
    }

    @Test("an https server gives wss URLs; the environment works as the arguments do")
    func secureServer() throws {
        let overrides = try LaunchOverrides(arguments: ["app"], environment: ["STUB_WEBSOCKET_SERVER": "https://stubs.local:8443/base/"])
        #expect(overrides.webSocketURL(for: Self.chat).absoluteString == "wss://stubs.local:8443/base/chat.example.test/orders/1/chat?token=a%2Bb")
    }

    @Test("with the kill switch and no server, the URL names a host that never resolves")
    func killSwitchRefuses() throws {
        let overrides = try LaunchOverrides(arguments: ["app", "STUB_KILL_NETWORK"], environment: [:])
        let routed = overrides.webSocketURL(for: Self.chat)
        #expect(routed.host?.hasSuffix(".invalid") == true)
        #expect(routed.absoluteString == "ws://Chat.Example.test.stubkit-refused.invalid/orders/1/chat?token=a%2Bb")
    }

    @Test("a production launch leaves the URL unchanged")
    func production() throws {
        let overrides = try LaunchOverrides(arguments: ["app"], environment: [:])
        #expect(overrides.webSocketURL(for: Self.chat) == Self.chat)
        #expect(!overrides.isTestLaunch)
    }

    @Test("a server that is not a URL is a launch problem naming the variable")
    func badServer() {
        #expect(throws: StubKitError.self) {
            _ = try LaunchOverrides(arguments: ["app", "STUB_WEBSOCKET_SERVER=127.0.0.1"], environment: [:])
        }
        let settings = StubLaunchSettings(arguments: ["app", "STUB_WEBSOCKET_SERVER=nonsense"], environment: [:])
        #expect(settings.problems.first?.contains("STUB_WEBSOCKET_SERVER='nonsense'") == true)
    }

    @Test("the runner's configuration hands the server to the app in the same form the app reads")
    func runnerRoundTrip() throws {
        var configuration = AppLaunchConfiguration(templates: ["order_tracking"])
        configuration.webSocketServer = URL(string: "http://127.0.0.1:4567")
        let overrides = try LaunchOverrides(arguments: ["app"] + configuration.launchArguments, environment: configuration.launchEnvironment)
        #expect(overrides.webSocketURL(for: Self.chat).absoluteString == "ws://127.0.0.1:4567/chat.example.test/orders/1/chat?token=a%2Bb")
    }

    @Test("StubURLProtocol never takes a WebSocket request, even when the kill switch takes everything else")
    func protocolDeclinesWebSockets() {
        let engine = StubEngine(killSwitch: true)
        var upgrade = URLRequest(url: URL(string: "https://chat.example.test/orders/1/chat")!)
        #expect(StubURLProtocol.takes(upgrade, answerer: .engine(engine)), "a plain request is taken by the kill switch")
        upgrade.setValue("WebSocket", forHTTPHeaderField: "Upgrade")
        #expect(!StubURLProtocol.takes(upgrade, answerer: .engine(engine)))
        upgrade.setValue("h2c, websocket", forHTTPHeaderField: "Upgrade")
        #expect(!StubURLProtocol.takes(upgrade, answerer: .engine(engine)))
        #expect(!StubURLProtocol.takes(URLRequest(url: Self.chat), answerer: .engine(engine)))
    }
}
