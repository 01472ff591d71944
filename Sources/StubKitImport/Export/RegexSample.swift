#if Tools
import Foundation
import StubKit

/// A text that a regular expression matches, for exporting rules whose URL or query is a pattern:
/// literals kept, escapes unescaped, the first branch of each alternation, optional parts left out,
/// classes by their first member. The result is checked with StubKit's own matcher, so a pattern
/// this cannot sample gives `nil`, never a wrong request.
package enum RegexSample {
    package static func text(matching pattern: String) -> String? {
        guard let regex = try? RegexPattern(pattern) else { return nil }
        // `x*` once first (a header value cannot end in the space of `Bearer\s.*`), then not at all.
        for starOnce in [true, false] {
            var scanner = Scanner(characters: Array(pattern), starOnce: starOnce)
            if let text = scanner.sequence(), scanner.index == scanner.characters.count, regex.matches(text) { return text }
        }
        return nil
    }

    /// An absolute URL the `urlRegex` matches; a sample without scheme and host gets `https://localhost`.
    package static func url(matching pattern: String) -> String? {
        guard var text = self.text(matching: pattern) else { return nil }
        if !text.contains("://") {
            text = "https://localhost" + (text.hasPrefix("/") ? "" : "/") + text
        }
        guard URL(string: text) != nil, let regex = try? RegexPattern(pattern), regex.matches(text) else { return nil }
        return text
    }

    private struct Scanner {
        var characters: [Character]
        var starOnce: Bool
        var index = 0

        /// A sequence of atoms up to `|`, `)` or the end; alternatives after `|` are skipped.
        mutating func sequence() -> String? {
            var atoms: [String] = []
            while index < characters.count {
                let c = characters[index]
                if c == ")" { break }
                if c == "|" {
                    index += 1
                    guard skipBranches() else { return nil }
                    break
                }
                index += 1
                var atom: String
                switch c {
                case "^", "$": atom = ""
                case ".": atom = "x"
                case "\\":
                    guard index < characters.count else { return nil }
                    let e = characters[index]
                    index += 1
                    switch e {
                    case "d": atom = "1"
                    case "w": atom = "a"
                    case "s": atom = " "
                    case "b", "B", "A", "z", "Z": atom = ""
                    case "D", "W", "S", "n", "t", "r", "u", "x", "p", "P": return nil
                    default: atom = String(e)
                    }
                case "[":
                    guard let member = classMember() else { return nil }
                    atom = member
                case "(":
                    if index < characters.count, characters[index] == "?" {
                        // (?:…) and (?i:…) groups; lookarounds are not sampled.
                        index += 1
                        while index < characters.count, characters[index] != ":" {
                            if !characters[index].isLetter && characters[index] != "-" { return nil }
                            index += 1
                        }
                        index += 1
                    }
                    guard let inner = sequence(), index < characters.count, characters[index] == ")" else { return nil }
                    index += 1
                    atom = inner
                default:
                    atom = String(c)
                }
                // Quantifiers: optional parts go, repeated ones appear the fewest times allowed.
                if index < characters.count {
                    switch characters[index] {
                    case "*": if !starOnce { atom = "" }; index += 1
                    case "?": atom = ""; index += 1
                    case "+": index += 1
                    case "{":
                        guard let close = characters[index...].firstIndex(of: "}"),
                              let minimum = Int(String(characters[(index + 1)..<close]).split(separator: ",", omittingEmptySubsequences: false).first ?? "") else { return nil }
                        atom = String(repeating: atom, count: minimum)
                        index = close + 1
                    default: break
                    }
                    if index < characters.count, characters[index] == "?" || characters[index] == "+" { index += 1 }
                }
                atoms.append(atom)
            }
            return atoms.joined()
        }

        /// Skips the remaining alternatives up to the group's `)`, minding nesting and escapes.
        mutating func skipBranches() -> Bool {
            var depth = 0
            while index < characters.count {
                let c = characters[index]
                if c == "\\" { index += 2; continue }
                if c == "(" { depth += 1 }
                if c == ")" {
                    if depth == 0 { return true }
                    depth -= 1
                }
                index += 1
            }
            return true
        }

        /// The first character a `[…]` class accepts (after the `[`); `nil` for negated classes.
        mutating func classMember() -> String? {
            guard index < characters.count, characters[index] != "^" else { return nil }
            var first: String? = nil
            while index < characters.count {
                let c = characters[index]
                index += 1
                if c == "]" && first != nil { return first }
                if first == nil {
                    if c == "\\" {
                        guard index < characters.count else { return nil }
                        let e = characters[index]
                        index += 1
                        first = e == "d" ? "1" : e == "w" ? "a" : e == "s" ? " " : String(e)
                    } else {
                        first = String(c)
                    }
                } else if c == "\\" {
                    index += 1
                }
            }
            return nil
        }
    }
}
#endif
