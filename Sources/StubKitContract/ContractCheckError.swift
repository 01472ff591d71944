#if Tools
/// An OpenAPI document or a journal that cannot be read at all, so nothing was checked.
///
/// Its description names the file and, where known, the line and column:
/// `api.yaml:12:3: not a valid OpenAPI document: … [SK200]`, `app.jsonl: no such file or folder`.
public struct ContractCheckError: Error, Sendable, CustomStringConvertible {
    /// The file that cannot be read, as given.
    public var file: String
    /// The line of the problem in `file`, when it is known.
    public var line: Int?
    /// What is wrong, starting with the file (and line).
    public var description: String
}
#endif
