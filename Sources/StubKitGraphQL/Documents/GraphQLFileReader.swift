#if Tools
import Foundation
import GraphQL
import StubKit

/// Reads GraphQL files into one ``GraphQLSourceText`` and parses it with GraphQLSwift, after the checks
/// that keep the parser safe: a readable UTF-8 file, a size limit, and the nesting pre-scan.
package enum GraphQLFileReader {
    /// Larger than GitHub's public schema (about 1.3 MB) by far.
    package static let maximumFileSize = 32 << 20

    /// Each file's text, or the problem that keeps it out.
    package static func read(_ url: URL, display: String) -> Result<String, GraphQLProblem> {
        guard let data = try? Data(contentsOf: url) else {
            return .failure(GraphQLProblem(file: display, position: nil, message: "cannot read the file"))
        }
        guard data.count <= maximumFileSize else {
            return .failure(GraphQLProblem(file: display, position: nil, message: "the file is \(data.count) bytes, more than the \(maximumFileSize) a GraphQL file may have here"))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            return .failure(GraphQLProblem(file: display, position: nil, message: "the file is not UTF-8 text"))
        }
        var single = GraphQLSourceText()
        single.append(text, file: display, url: url)
        if let problem = nestingProblem(in: single) { return .failure(problem) }
        return .success(text)
    }

    /// A document that is not a file (a request's `query`): the nesting pre-scan, then the parse.
    /// Problems are placed in the document's own lines and columns, named `display`.
    package static func parse(document: String, display: String) -> Result<(Document, GraphQLSourceText), GraphQLProblem> {
        var single = GraphQLSourceText()
        single.append(document, file: display, url: URL(fileURLWithPath: display))
        if let problem = nestingProblem(in: single) { return .failure(problem) }
        return parse(single, name: display).map { ($0, single) }
    }

    /// The nesting pre-scan of one file's text: deep nesting would exhaust the recursive parser's stack.
    private static func nestingProblem(in single: GraphQLSourceText) -> GraphQLProblem? {
        guard let offset = GraphQLNestingScan.firstTooDeep(in: single.text) else { return nil }
        return GraphQLProblem(file: single.parts.first?.file ?? "", position: single.location(of: offset)?.position,
                              message: "nesting deeper than \(GraphQLNestingScan.maximumDepth) levels; not parsed")
    }

    /// Parses one source, mapping a syntax error to its file, line and column.
    package static func parse(_ text: GraphQLSourceText, name: String) -> Result<Document, GraphQLProblem> {
        do {
            return .success(try GraphQL.parse(source: Source(body: text.text, name: name)))
        } catch let error as GraphQLError {
            return .failure(problem(error, in: text))
        } catch {
            return .failure(GraphQLProblem(file: text.parts.first?.file ?? name, position: nil, message: "\(error)"))
        }
    }

    /// A GraphQLSwift error at its first position in `text` (or at the first file when it has none).
    package static func problem(_ error: GraphQLError, in text: GraphQLSourceText) -> GraphQLProblem {
        let offset = error.positions.first ?? error.nodes.first?.loc?.start
        if let offset, let location = text.location(of: offset) {
            return GraphQLProblem(file: location.file, position: location.position, message: message(of: error))
        }
        return GraphQLProblem(file: text.parts.first?.file ?? "", position: nil, message: message(of: error))
    }

    /// The error's message without what the diagnostic says anyway: a syntax error's "Syntax Error
    /// NAME (line:column)" prefix (the line of one concatenated text, not of the file) and source excerpt.
    private static func message(of error: GraphQLError) -> String {
        var message = Substring(error.message)
        if let excerpt = message.range(of: "\n\n") { message = message[..<excerpt.lowerBound] }
        if message.hasPrefix("Syntax Error "), let close = message.range(of: ") ") {
            return "syntax error: " + message[close.upperBound...]
        }
        return String(message)
    }

    /// Where an AST node starts.
    package static func location(of node: (any Node)?, in text: GraphQLSourceText) -> (file: String, position: SourcePosition)? {
        node?.loc.flatMap { text.location(of: $0.start) }
    }
}
#endif
