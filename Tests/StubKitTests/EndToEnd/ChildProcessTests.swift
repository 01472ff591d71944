import Foundation
import Testing
import StubKitTestSupport

/// The tests' own child-process runner: a hung child must fail its test, never hang the run.
struct ChildProcessTests {
    @Test("a child still running at its time limit is killed and reported with what it printed")
    func hungChildIsKilled() throws {
        let started = Date()
        let error = try #require(throws: ChildProcess.TimedOut.self) {
            try ChildProcess.run(executableURL: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "echo started; exec sleep 600"], limit: 1)
        }
        #expect(error.stdout == "started\n")
        #expect(error.description.contains("still running after 1 s"))
        #expect(Date().timeIntervalSince(started) < 60)
    }

    @Test("a child that fills both pipes and reads its input finishes, with every byte")
    func fullPipes() throws {
        let input = Data(repeating: UInt8(ascii: "i"), count: 300_000)
        let output = try ChildProcess.run(executableURL: URL(fileURLWithPath: "/bin/sh"),
                                          arguments: ["-c", "head -c 200000 /dev/zero | tr '\\0' e >&2; wc -c; head -c 200000 /dev/zero | tr '\\0' o"],
                                          input: input)
        #expect(output.status == 0)
        #expect(output.stderr.count == 200_000)
        #expect(output.stdout.hasPrefix("300000\n"))
        #expect(output.stdoutData.count == "300000\n".utf8.count + 200_000)
    }
}
