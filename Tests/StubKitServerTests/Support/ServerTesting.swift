#if Tools
import Foundation
import StubKitTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Runs `body` against a fresh `stubkit serve ARGUMENTS`, then checks that the server is still alive
/// (nothing the test sent crashed it), stops it with SIGTERM and expects a clean exit (status 0,
/// "stopped", no error lines such as NIO's "Cannot schedule tasks").
@discardableResult
func withServer<T>(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation,
                   _ body: (ServerProcess) throws -> T) throws -> T {
    let server = try ServerProcess(arguments)
    let result: T
    do {
        result = try body(server)
    } catch {
        server.terminate(SIGKILL)
        throw error
    }
    #expect(server.isRunning, "the server died during the test", sourceLocation: sourceLocation)
    let exit = server.terminate(SIGTERM)
    expectCleanExit(exit, sourceLocation: sourceLocation)
    return result
}

func expectCleanExit(_ exit: ServerProcess.Exit, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(exit.exited && exit.status == 0, "stubkit serve ended with status \(exit.status): \(exit.stderr)", sourceLocation: sourceLocation)
    #expect(exit.stdout.hasSuffix("stopped\n"), "stdout: \(exit.stdout)", sourceLocation: sourceLocation)
    #expect(!exit.stderr.contains("ERROR") && !exit.stderr.contains("Fatal"), "stderr: \(exit.stderr)", sourceLocation: sourceLocation)
}

/// The example bundles shipped with the package.
let stubBundles = PackagePaths.stubBundles.path

/// An HTTP answer as a real client (curl) received it.
struct HTTPReply: CustomStringConvertible {
    var status: Int
    /// Field names lower-cased.
    var headers: [String: String]
    var body: Data
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any]) ?? [:] }
    var description: String { "\(status) \(headers) \(text)" }
}

/// `/usr/bin/curl` as a child process: one request, the answer's status, headers and body.
enum Curl {
    static let executable = URL(fileURLWithPath: "/usr/bin/curl")

    static func request(_ url: String, _ options: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws -> HTTPReply {
        let folder = try TemporaryFolder()
        let head = folder.url.appendingPathComponent("head"), body = folder.url.appendingPathComponent("body")
        let output = try ChildProcess.run(executableURL: executable, arguments: [
            "--silent", "--show-error", "--max-time", "60", "--dump-header", head.path, "--output", body.path,
        ] + options + [url])
        guard output.status == 0 else {
            throw ServerProcess.Failure(description: "curl \(options.joined(separator: " ")) \(url) failed (\(output.status)): \(output.stderr)")
        }
        // The last head counts (after a 100 Continue, say).
        let heads = String(decoding: try Data(contentsOf: head), as: UTF8.self).components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }
        let lines = (heads.last ?? "").components(separatedBy: "\r\n")
        let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return HTTPReply(status: status, headers: headers, body: (try? Data(contentsOf: body)) ?? Data())
    }
}
#endif
