import Foundation
import Testing
import StubKitTestSupport

/// The stand-in app launched as a child process: launch arguments and environment are the only channel,
/// as between a UI test and the app under test.
struct StubdemoProcessTests {
    let api = "https://api.takeaway.example"

    @Test("launch arguments activate a bundle; URLSession.shared is answered from it")
    func happyPath() throws {
        let out = try ChildProcess.run("stubdemo", arguments: ["STUB_API_CALLS_restaurants_base", "STUB_KILL_NETWORK", "GET", "\(api)/restaurants", "POST", "\(api)/orders", "--data", "{\"items\":[11]}"])
        #expect(out.status == 0, "\(out.stderr)")
        let lines = out.jsonLines
        #expect(lines.count == 2)
        #expect(lines[0]["status"] as? Int == 200)
        #expect((lines[0]["body"] as? String)?.contains("Pizzeria Napoli") == true)
        #expect(lines[1]["status"] as? Int == 201)
        #expect((lines[1]["headers"] as? [String: String])?["Location"] == "https://api.takeaway.example/orders/9001")
    }

    @Test("a scenario bundle layered over the base changes the answers")
    func layering() throws {
        let out = try ChildProcess.run("stubdemo", arguments: ["STUB_API_CALLS_restaurants_base", "STUB_API_CALLS_restaurants_closed", "GET", "\(api)/restaurants", "GET", "\(api)/restaurants/1/menu"])
        let lines = out.jsonLines
        #expect((lines.first?["body"] as? String)?.contains("\"isOpen\": false") == true)
        #expect(lines.last?["status"] as? Int == 200)
    }

    @Test("the kill switch fails unmatched requests and no connection reaches a real server")
    func killSwitchInChild() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let out = try ChildProcess.run("stubdemo", arguments: ["STUB_API_CALLS_restaurants_base", "STUB_KILL_NETWORK", "GET", server.baseURL.absoluteString + "/x"])
        let error = out.jsonLines.first?["error"] as? [String: Any]
        #expect(error?["code"] as? Int == -1009)
        #expect((error?["description"] as? String)?.contains("active bundles: restaurants_base") == true)
        #expect(server.connectionCount == 0)

        let open = try ChildProcess.run("stubdemo", arguments: ["STUB_API_CALLS_restaurants_base", "GET", server.baseURL.absoluteString + "/x"])
        #expect(open.jsonLines.first?["body"] as? String == "from the real network")
        #expect(server.connectionCount == 1)
    }

    @Test("environment variables work as well as launch arguments, with STUB_BUNDLES_PATH")
    func environment() throws {
        let out = try ChildProcess.run("stubdemo", arguments: ["--session", "custom", "GET", "\(api)/restaurants"],
                                       environment: ["STUB_API_CALLS": "offline", "STUB_BUNDLES_PATH": PackagePaths.stubBundles.path],
                                       currentDirectory: FileManager.default.temporaryDirectory)
        #expect((out.jsonLines.first?["error"] as? [String: Any])?["code"] as? Int == -1009)
    }

    @Test("simulated server errors and time-outs from the server_errors bundle")
    func serverErrors() throws {
        let out = try ChildProcess.run("stubdemo", arguments: ["STUB_API_CALLS_server_errors", "--task", "async", "GET", "\(api)/restaurants", "POST", "\(api)/orders"])
        #expect(out.jsonLines.first?["status"] as? Int == 500)
        #expect((out.jsonLines.last?["error"] as? [String: Any])?["code"] as? Int == -1001)
    }

    @Test("download(for:) gets a clear error on Linux, never a crash")
    func asyncDownload() throws {
        let out = try ChildProcess.run("stubdemo", arguments: ["STUB_API_CALLS_restaurants_base", "--session", "custom", "--task", "async-download", "GET", "\(api)/restaurants"])
        #expect(out.status == 0)
        #if canImport(FoundationNetworking)
        let description = (out.jsonLines.first?["error"] as? [String: Any])?["description"] as? String
        #expect(description?.contains("cannot answer download tasks on Linux") == true)
        #else
        #expect(out.jsonLines.first?["status"] as? Int == 200)
        #endif
    }

    @Test("an unknown template stops the app with a clear message and exit status 3")
    func unknownTemplate() throws {
        let out = try ChildProcess.run("stubdemo", arguments: ["STUB_API_CALLS_restaurant_base", "GET", "\(api)/restaurants"])
        #expect(out.status == 3)
        #expect(out.stderr.contains("unknown stub template 'restaurant_base'"))
        #expect(out.stderr.contains("did you mean 'restaurants_base'?"))
        #expect(out.stdout.isEmpty)
    }

    @Test("with nothing to do (no request, no --interactive) it prints its usage and exits 2, as the exit-code table says")
    func nothingToDo() throws {
        for arguments in [[], ["STUB_API_CALLS_restaurants_base", "STUB_KILL_NETWORK"]] {
            let out = try ChildProcess.run("stubdemo", arguments: arguments)
            #expect(out.status == 2, "\(arguments): \(out.stdout)\(out.stderr)")
            #expect(out.stderr.contains("usage: stubdemo"), "\(arguments): \(out.stderr)")
        }
    }
}
