import Foundation

/// python3 as a child process: the tests' real JSON Schema validator (python-jsonschema).
public enum ChildProcessRunner {
    /// Whether python3 can import jsonschema (and rfc3339-validator, which its date-time check needs).
    public static var pythonJSONSchemaAvailable: Bool {
        (try? python(["-c", "import jsonschema, rfc3339_validator"])) != nil
    }

    /// Runs python3 from the package root and returns its standard output; throws with its stderr on failure.
    public static func python(_ arguments: [String]) throws -> String {
        let output = try ChildProcess.run(executableURL: URL(fileURLWithPath: "/usr/bin/env"), arguments: ["python3"] + arguments,
                                          currentDirectory: PackagePaths.root)
        guard output.status == 0 else {
            throw PythonFailure(message: output.stderr)
        }
        return output.stdout
    }

    public struct PythonFailure: Error, CustomStringConvertible {
        var message: String
        public var description: String { "python3 failed (is python-jsonschema installed? .ci/run installs it): \(message)" }
    }
}
