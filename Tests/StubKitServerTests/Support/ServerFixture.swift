#if Tools
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit
import StubKitServer
import StubKitTestSupport

/// A server started in the test's process on a folder of bundles written for the test.
final class ServerFixture: @unchecked Sendable {
    let folder: TemporaryFolder
    let engine: StubEngine
    let server: StubServer
    let port: Int
    /// A plain session: no StubURLProtocol, so every request really goes over loopback.
    let session: URLSession

    init(bundles: [String: [String: String]], active: [String], recorder: Recorder? = nil, folder: TemporaryFolder? = nil,
         configure: (inout StubServerConfiguration) -> Void = { _ in }) async throws {
        self.folder = try folder ?? TemporaryFolder()
        for (name, files) in bundles { try self.folder.bundle(name, files) }
        var configuration = StubServerConfiguration()
        configuration.threads = 2
        configure(&configuration)
        engine = StubEngine(now: Date(timeIntervalSince1970: 1_800_000_000), recorder: recorder)
        server = StubServer(engine: engine, bundlesFolder: self.folder.url, configuration: configuration)
        for template in active { try server.activate(template) }
        port = try await server.start()
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.urlCache = nil
        session = URLSession(configuration: sessionConfiguration)
    }

    var base: String { "http://127.0.0.1:\(port)" }

    func get(_ path: String, method: String = "GET", body: String? = nil, headers: [String: String] = [:], timeout: TimeInterval = 30) async -> TaskResult {
        var request = URLRequest(url: URL(string: base + path)!, timeoutInterval: timeout)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return await session.result(for: request)
    }

    func stop() async {
        session.invalidateAndCancel()
        await server.shutdown()
    }
}
#endif
