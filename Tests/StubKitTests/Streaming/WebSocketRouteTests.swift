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
        let overrides = try LaunchOverrides(arguments: ["app", "STUB_API_CALLS_chat", "STUB_WEBSOCKET_SERVER=http://127.0.0.1:8123"], environment: [:])
        #expect(overrides.webSocketURL(for: Self.chat).absoluteString == "ws://127.0.0.1:8123/chat.example.test/orders/1/chat?token=a%2Bb")
        #expect(overrides.webSocketURL(for: URL(string: "ws://chat.example.test:9000/")!).absoluteString == "ws://127.0.0.1:8123/chat.example.test:9000/")
        #expect(overrides.isTestLaunch)
        // Not a WebSocket-able URL: left alone.
        #expect(overrides.webSocketURL(for: URL(string: "file:///tmp/x")!).absoluteString == "file:///tmp/x")
    }

    @Test("an https server gives wss URLs; the environment works as the arguments do")
    func secureServer() throws {
        let overrides = try LaunchOverrides(arguments: ["app"], environment: ["STUB_KILL_NETWORK": "1", "STUB_WEBSOCKET_SERVER": "https://localhost:8443/base/"])
        #expect(overrides.webSocketURL(for: Self.chat).absoluteString == "wss://localhost:8443/base/chat.example.test/orders/1/chat?token=a%2Bb")
    }

    @Test("a server that is not loopback is refused, naming the variable and the value, unless the environment opts in", arguments: [
        "http://192.168.1.20:8080", "https://stubs.example.test", "ws://127.0.0.1.example.test:80", "http://[::2]:80",
    ])
    func remoteServerRefused(_ server: String) throws {
        let arguments = ["app", "STUB_KILL_NETWORK", "STUB_WEBSOCKET_SERVER=\(server)"]
        let settings = StubLaunchSettings(arguments: arguments, environment: [:])
        #expect(settings.webSocketServer == nil)
        #expect(settings.problems.contains { $0.contains("STUB_WEBSOCKET_SERVER='\(server)'") && $0.contains("STUB_WEBSOCKET_SERVER_ALLOW_REMOTE") }, "\(settings.problems)")
        #expect(throws: StubKitError.self) { _ = try LaunchOverrides(arguments: arguments, environment: [:]) }
        // The opt-in is an environment variable; a launch argument cannot give it.
        #expect(StubLaunchSettings(arguments: arguments + ["STUB_WEBSOCKET_SERVER_ALLOW_REMOTE=1"], environment: [:]).webSocketServer == nil)
        let allowed = try LaunchOverrides(arguments: arguments, environment: ["STUB_WEBSOCKET_SERVER_ALLOW_REMOTE": "1"])
        #expect(allowed.webSocketURL(for: Self.chat).host == URL(string: server)!.host)
    }

    @Test("loopback servers are accepted", arguments: ["http://127.0.0.1:1", "http://127.1.2.3:1", "http://[::1]:1", "http://LOCALHOST:1", "ws://localhost.:1"])
    func loopbackServer(_ server: String) {
        let settings = StubLaunchSettings(arguments: ["app", "STUB_KILL_NETWORK", "STUB_WEBSOCKET_SERVER=\(server)"], environment: [:])
        #expect(settings.problems.isEmpty, "\(settings.problems)")
        #expect(settings.webSocketServer != nil)
    }

    @Test("a server in a launch that requests no stubs is not honoured: the app's sockets go where production's go")
    func serverWithoutStubsIgnored() throws {
        let overrides = try LaunchOverrides(arguments: ["app", "STUB_WEBSOCKET_SERVER=http://127.0.0.1:8123"], environment: [:])
        #expect(overrides.webSocketURL(for: Self.chat) == Self.chat)
        #expect(!overrides.isTestLaunch)
    }

    @Test("with the kill switch and no server, every URL becomes one constant refused URL, carrying nothing of the original", arguments: [
        "wss://Chat.Example.test/orders/1/chat?token=a%2Bb",
        "wss://[::1]:8443/c",
        "wss://user:password@chat.example.test/c?token=secret",
        "https://chat.example.test:444/c#frag",
    ])
    func killSwitchRefuses(_ text: String) throws {
        let overrides = try LaunchOverrides(arguments: ["app", "STUB_KILL_NETWORK"], environment: [:])
        let routed = overrides.webSocketURL(for: URL(string: text)!)
        #expect(routed.absoluteString == "ws://stubkit-refused.invalid/")
    }

    @Test("with a server named, a URL is routed to the server or refused, never returned as it was", arguments: [
        "wss://[::1]:8443/c", "wss://user:password@chat.example.test/c?token=secret", "ws://chat.example.test/a%20b/%E2%9C%93?q=%20",
    ])
    func serverNeverLeaksTheOriginal(_ text: String) throws {
        let original = URL(string: text)!
        let route = WebSocketRoute(server: URL(string: "http://127.0.0.1:8123")!, killSwitch: false)
        let routed = route.url(for: original)
        #expect(routed.host == "127.0.0.1" || routed == WebSocketRoute.refusedURL)
        #expect(routed.user == nil && routed.password == nil)
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
            _ = try LaunchOverrides(arguments: ["app", "STUB_KILL_NETWORK", "STUB_WEBSOCKET_SERVER=127.0.0.1"], environment: [:])
        }
        let settings = StubLaunchSettings(arguments: ["app", "STUB_KILL_NETWORK", "STUB_WEBSOCKET_SERVER=nonsense"], environment: [:])
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
