#if Tools
import Foundation
import StubKitTestSupport
import Testing

/// What hostile or broken clients send: a clear 4xx or a closed connection for them, and everyone
/// else keeps being served (each test ends with the server alive and answering, see ``withServer``).
@Suite("stubkit serve with bad input", .timeLimit(.minutes(2)))
struct ServerBadInputTests {
    static let stub = "/api.takeaway.example/restaurants"

    /// The server still answers a well-formed request.
    static func expectServing(_ server: ServerProcess, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reply = try Curl.request("\(server.baseURL)\(stub)")
        #expect(reply.status == 200, "\(reply)", sourceLocation: sourceLocation)
    }

    @Test("malformed HTTP gets 400 and the connection closed; other clients are served", arguments: [
        "this is not HTTP at all\r\n\r\n",
        "GET /a b c d HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost x no colon\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ])
    func malformedHTTP(_ bytes: String) throws {
        try withServer([stubBundles, "--template", "restaurants_base"]) { server in
            let connection = try RawConnection(port: server.port)
            try connection.send(bytes)
            let answer = String(decoding: try connection.readToEnd(), as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
            try Self.expectServing(server)
        }
    }

    @Test("a 100 MB body is refused with 413 naming --max-body, announced or not")
    func hugeBody() throws {
        let folder = try TemporaryFolder()
        // Sparse: 100 MB on disk costs nothing, and curl reads it all.
        let file = folder.url.appendingPathComponent("huge.bin")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: 100 << 20)
        try handle.close()
        try withServer([stubBundles, "--template", "restaurants_base"]) { server in
            let announced = try Curl.request("\(server.baseURL)/api.takeaway.example/orders", ["--data-binary", "@\(file.path)"])
            #expect(announced.status == 413, "\(announced)")
            #expect(announced.text.contains("--max-body"), "\(announced.text)")
            let chunked = try Curl.request("\(server.baseURL)/api.takeaway.example/orders",
                                           ["--data-binary", "@\(file.path)", "--header", "Transfer-Encoding: chunked"])
            #expect(chunked.status == 413, "\(chunked)")
            #expect(chunked.text.contains("more than"), "\(chunked.text)")
            try Self.expectServing(server)
        }
    }

    @Test("a slowloris client is closed after --header-timeout while others are served meanwhile")
    func slowloris() throws {
        try withServer([stubBundles, "--template", "restaurants_base", "--header-timeout", "1"]) { server in
            let slow = try RawConnection(port: server.port)
            try slow.send("GET \(Self.stub) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            // Served while the slow client holds its connection.
            try Self.expectServing(server)
            // Then the server closes the half-sent request (an answer would mean it waited for the rest).
            let answer = try slow.readToEnd()
            #expect(answer.isEmpty, "\(String(decoding: answer, as: UTF8.self))")
            try Self.expectServing(server)
        }
    }

    @Test("paths with dot segments or NULs get 400", arguments: [
        "/api.takeaway.example/../etc/passwd",
        "/api.takeaway.example/%2e%2e/restaurants",
        "/api.takeaway.example/%2E%2E/restaurants",
        "/api.takeaway.example/restaurants%00.json",
        "/api.takeaway.example/./restaurants",
        "/api.takeaway.example/restaurants/%zz",
    ])
    func refusedPaths(_ path: String) throws {
        try withServer([stubBundles, "--template", "restaurants_base"]) { server in
            let reply = try Curl.request("\(server.baseURL)\(path)", ["--path-as-is"])
            #expect(reply.status == 400, "\(reply)")
            #expect(reply.text.contains("the path"), "\(reply.text)")
            try Self.expectServing(server)
        }
    }

    /// An admin request with a bad parameter and the parameter its 400 must name.
    struct AdminCase: CustomTestStringConvertible, Sendable {
        var method: String
        var path: String
        var parameter: String
        var testDescription: String { "\(method) \(path)" }
    }

    @Test("admin requests with a bad parameter get 400 naming it", arguments: [
        AdminCase(method: "POST", path: "kill-switch?on=maybe", parameter: "'on'"),
        AdminCase(method: "POST", path: "kill-switch", parameter: "'on'"),
        AdminCase(method: "GET", path: "wait?path=/restaurants&timeout=abc", parameter: "'timeout'"),
        AdminCase(method: "GET", path: "wait?path=/restaurants&timeout=1e9", parameter: "'timeout'"),
        AdminCase(method: "GET", path: "wait?path=[&timeout=1", parameter: "'path'"),
        AdminCase(method: "GET", path: "wait?path=%5B&timeout=1", parameter: "'path'"),
        AdminCase(method: "GET", path: "wait?path=/x&timeout=1&count=0", parameter: "'count'"),
        AdminCase(method: "GET", path: "absent?path=/x&within=-1", parameter: "'within'"),
        AdminCase(method: "GET", path: "absent?path=/x", parameter: "'within'"),
    ])
    func adminBadParameter(_ bad: AdminCase) throws {
        try withServer([stubBundles, "--template", "restaurants_base"]) { server in
            let reply = try Curl.request("\(server.baseURL)/__stubkit/\(bad.path)", ["--request", bad.method, "--globoff"])
            #expect(reply.status == 400, "\(reply)")
            #expect((reply.json["error"] as? String)?.contains(bad.parameter) == true, "\(reply.text)")
            try Self.expectServing(server)
        }
    }
}
#endif
