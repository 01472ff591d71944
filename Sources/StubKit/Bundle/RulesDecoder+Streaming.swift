import Foundation

/// The streaming keys: `events` (Server-Sent Events, a response key) and `webSocket` (a rule's
/// conversation once it accepts a WebSocket upgrade), with their templates and the checks across keys.
extension RulesDecoder {
    // MARK: Server-Sent Events

    /// `events`: an array of event dictionaries.
    mutating func eventStream(_ value: SourceValue, keepsOpen: Bool, keyPath: String) -> EventStream? {
        guard let items = value.arrayValue else {
            wrongType(value, keyPath: keyPath, expected: "an array of events such as {\"event\": \"status\", \"data\": \"preparing\", \"delay\": 1}")
            return nil
        }
        var events: [EventStream.Event] = []
        for (index, item) in items.enumerated() {
            if let event = event(item, keyPath: "\(keyPath)[\(index)]") { events.append(event) }
        }
        return EventStream(events: events, keepsOpen: keepsOpen)
    }

    private mutating func event(_ value: SourceValue, keyPath: String) -> EventStream.Event? {
        guard let entries = value.dictionaryValue else {
            wrongType(value, keyPath: keyPath, expected: "an event dictionary (event, data, id, retry, comment, delay, setState)")
            return nil
        }
        var event = EventStream.Event()
        event.position = value.position
        var seen: SeenKeys = []
        for entry in entries {
            guard checkDuplicate(entry, keyPath: keyPath, seen: &seen) else { continue }
            let path = "\(keyPath).\(entry.key)"
            switch RuleKey.EventField(rawValue: entry.key) {
            case .event: event.event = string(entry.value, keyPath: path)
            case .data:
                if case .string(let text) = entry.value.kind {
                    event.data = text
                } else {
                    // Any other JSON value is sent as compact JSON, as most event streams carry it.
                    event.data = String(decoding: entry.value.jsonData(), as: UTF8.self)
                    event.dataIsJSON = true
                }
            case .id: event.id = scalarText(entry.value, keyPath: path)
            case .retry:
                if let retry = integer(entry.value, keyPath: path) {
                    if retry >= 0 { event.retry = retry } else {
                        report(.invalidValue, at: entry.value.position, keyPath: path, "a retry of \(retry) ms is negative", fix: "give the reconnection time in milliseconds, such as 3000")
                    }
                }
            case .comment: event.comment = string(entry.value, keyPath: path)
            case .delay: event.delay = delay(entry.value, keyPath: path) ?? 0
            case .setState: event.setState = string(entry.value, keyPath: path)
            case nil: unknownKey(entry, keyPath: keyPath, candidates: RuleKey.EventField.allCases.map(\.rawValue))
            }
        }
        if event.event == nil, event.data == nil, event.id == nil, event.retry == nil, event.comment == nil {
            report(.missingKey, at: value.position, keyPath: keyPath, "the event sends nothing",
                   fix: "give it 'data' (and optionally 'event', 'id', 'retry'), or a 'comment' for a keep-alive")
        } else if event.event != nil, event.data == nil {
            // WHATWG: an event whose data buffer is empty is not dispatched, whatever its type; `id` and
            // `retry` alone still count (they set the last event id and the reconnection time).
            report(.eventWithoutData, at: value.position, keyPath: keyPath,
                   "the event has 'event' but no 'data', so clients (EventSource and WHATWG parsers) never dispatch it",
                   fix: "add \"data\": \"\"")
        }
        return event
    }

    /// Parses the templated fields of each event, when the rule says `template`.
    mutating func eventTemplates(of response: inout StubResponse, pathParameters: Set<String>?, keyPath: String) {
        guard var stream = response.events else { return }
        for index in stream.events.indices {
            let event = stream.events[index]
            let path = "\(keyPath).events[\(index)]"
            var templates = EventStream.Event.Templates()
            templates.event = eventTemplate(event.event, syntax: .text, at: event.position, keyPath: "\(path).event", pathParameters: pathParameters)
            templates.data = eventTemplate(event.data, syntax: event.dataIsJSON ? .json : .text, at: event.position, keyPath: "\(path).data", pathParameters: pathParameters)
            templates.id = eventTemplate(event.id, syntax: .text, at: event.position, keyPath: "\(path).id", pathParameters: pathParameters)
            templates.comment = eventTemplate(event.comment, syntax: .text, at: event.position, keyPath: "\(path).comment", pathParameters: pathParameters)
            if templates.event != nil || templates.data != nil || templates.id != nil || templates.comment != nil { stream.events[index].templates = templates }
        }
        response.events = stream
    }

    private mutating func eventTemplate(_ text: String?, syntax: ResponseTemplate.Syntax, at position: SourcePosition?, keyPath: String,
                                        pathParameters: Set<String>?) -> ResponseTemplate? {
        guard let text, text.contains("{{") else { return nil }
        do {
            return try ResponseTemplate(parsing: text, pathParameters: pathParameters, syntax: syntax)
        } catch {
            for problem in error.problems { report(.unknownTemplateField, at: position, keyPath: keyPath, problem.message, fix: problem.fix) }
            return nil
        }
    }

    /// Applies `keepOpen` to the response's `events` (it belongs to them), and checks that `events`
    /// leaves no room for a throttle. Called once a response's own keys are read.
    mutating func checkEventStream(_ response: inout StubResponse, entries: [SourceValue.Entry], keyPath: String) {
        if let keepOpen = entries.first(where: { $0.key == RuleKey.keepOpen.rawValue }) {
            if case .bool(let keepsOpen) = keepOpen.value.kind {
                if response.events != nil {
                    response.events?.keepsOpen = keepsOpen
                } else {
                    report(.conflictingKeys, at: keepOpen.keyPosition, keyPath: "\(keyPath).keepOpen", "'keepOpen' applies to 'events', which the response does not have",
                           fix: "add 'events' or remove 'keepOpen'")
                }
            } else {
                wrongType(keepOpen.value, keyPath: "\(keyPath).keepOpen", expected: "true or false")
            }
        }
        if response.events != nil, response.throttle != nil {
            let throttle = entries.first { $0.key == RuleKey.throttle.rawValue }
            report(.conflictingKeys, at: throttle?.keyPosition, keyPath: "\(keyPath).throttle", "'throttle' cannot pace an event stream; each event's 'delay' does",
                   fix: "remove 'throttle' and give the events delays")
        }
    }

    // MARK: WebSockets

    /// `webSocket`: the script of the conversation. Templates are parsed when `isTemplate`.
    mutating func webSocketScript(_ value: SourceValue, isTemplate: Bool, pathParameters: Set<String>?, keyPath: String) -> WebSocketScript? {
        guard let entries = value.dictionaryValue else {
            wrongType(value, keyPath: keyPath, expected: "a WebSocket script (onConnect, replies, every, subprotocol, maxMessageSize)")
            return nil
        }
        var script = WebSocketScript()
        var seen: SeenKeys = []
        let steps = StepOptions(isTemplate: isTemplate, pathParameters: pathParameters)
        for entry in entries {
            guard checkDuplicate(entry, keyPath: keyPath, seen: &seen) else { continue }
            let path = "\(keyPath).\(entry.key)"
            switch RuleKey.WebSocketKey(rawValue: entry.key) {
            case .onConnect: script.onConnect = self.steps(entry.value, options: steps, keyPath: path)
            case .replies:
                guard let items = entry.value.arrayValue else {
                    wrongType(entry.value, keyPath: path, expected: "an array of replies such as {\"when\": {\"contains\": \"ping\"}, \"send\": [{\"text\": \"pong\"}]}")
                    continue
                }
                script.replies = items.enumerated().compactMap { reply($0.element, options: steps, keyPath: "\(path)[\($0.offset)]") }
            case .every:
                guard let items = entry.value.arrayValue else {
                    wrongType(entry.value, keyPath: path, expected: "an array of periodic messages such as {\"interval\": 5, \"send\": [{\"ping\": \"\"}]}")
                    continue
                }
                script.periodic = items.enumerated().compactMap { periodic($0.element, options: steps, keyPath: "\(path)[\($0.offset)]") }
            case .subprotocol: script.subprotocol = string(entry.value, keyPath: path)
            case .maxMessageSize:
                if let size = integer(entry.value, keyPath: path) {
                    if size > 0 { script.maximumMessageSize = size } else {
                        report(.invalidValue, at: entry.value.position, keyPath: path, "a largest message of \(size) bytes would refuse every message",
                               fix: "give a positive number of bytes, such as 65536")
                    }
                }
            case nil: unknownKey(entry, keyPath: keyPath, candidates: RuleKey.WebSocketKey.allCases.map(\.rawValue))
            }
        }
        return script
    }

    struct StepOptions {
        var isTemplate: Bool
        var pathParameters: Set<String>?
    }

    private mutating func steps(_ value: SourceValue, options: StepOptions, keyPath: String) -> [WebSocketScript.Step] {
        // One step alone is taken as a list of one.
        if case .dictionary = value.kind, let step = step(value, options: options, keyPath: keyPath) { return [step] }
        guard let items = value.arrayValue else {
            if value.dictionaryValue == nil {
                wrongType(value, keyPath: keyPath, expected: "an array of steps such as {\"text\": \"hello\", \"delay\": 0.5}")
            }
            return []
        }
        return items.enumerated().compactMap { step($0.element, options: options, keyPath: "\(keyPath)[\($0.offset)]") }
    }

    private mutating func step(_ value: SourceValue, options: StepOptions, keyPath: String) -> WebSocketScript.Step? {
        guard let entries = value.dictionaryValue else {
            wrongType(value, keyPath: keyPath, expected: "a step (text, json, binary, ping or close, and an optional delay)")
            return nil
        }
        var step = WebSocketScript.Step(action: .send(.text("")), keyPath: keyPath)
        var actions: [SourceValue.Entry] = []
        var templateText: (String, ResponseTemplate.Syntax, SourcePosition?)?
        var seen: SeenKeys = []
        for entry in entries {
            guard checkDuplicate(entry, keyPath: keyPath, seen: &seen) else { continue }
            let path = "\(keyPath).\(entry.key)"
            guard let key = RuleKey.WebSocketStepKey(rawValue: entry.key) else {
                unknownKey(entry, keyPath: keyPath, candidates: RuleKey.WebSocketStepKey.allCases.map(\.rawValue))
                continue
            }
            if key != .delay { actions.append(entry) }
            switch key {
            case .delay: step.delay = delay(entry.value, keyPath: path) ?? 0
            case .text:
                if let text = string(entry.value, keyPath: path) {
                    step.action = .send(.text(text))
                    templateText = (text, .text, entry.value.position)
                }
            case .json:
                let text = String(decoding: entry.value.jsonData(), as: UTF8.self)
                step.action = .send(.text(text))
                templateText = (text, .json, entry.value.position)
            case .binary:
                guard let text = string(entry.value, keyPath: path) else { continue }
                if let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) {
                    step.action = .send(.binary(data))
                } else {
                    report(.invalidValue, at: entry.value.position, keyPath: path, "'binary' is not Base64", fix: "give the message's bytes in Base64, such as \"AAEC\"")
                }
            case .ping:
                guard let text = string(entry.value, keyPath: path) else { continue }
                if text.utf8.count <= 125 { step.action = .ping(Data(text.utf8)) } else {
                    report(.invalidValue, at: entry.value.position, keyPath: path, "a ping's payload is \(text.utf8.count) bytes; the limit is 125 (RFC 6455)",
                           fix: "shorten it")
                }
            case .close:
                if let close = closeAction(entry.value, keyPath: path) { step.action = close }
            }
        }
        if actions.isEmpty {
            report(.missingKey, at: value.position, keyPath: keyPath, "the step does nothing", fix: "give it one of: text, json, binary, ping, close")
            return nil
        }
        if actions.count > 1 {
            report(.conflictingKeys, at: actions[1].keyPosition, keyPath: "\(keyPath).\(actions[1].key)",
                   "'\(actions[0].key)' and '\(actions[1].key)' in one step", fix: "make them two steps")
        }
        if options.isTemplate, let (text, syntax, position) = templateText, text.contains("{{") {
            do {
                step.template = try ResponseTemplate(parsing: text, pathParameters: options.pathParameters, syntax: syntax)
            } catch {
                for problem in error.problems { report(.unknownTemplateField, at: position, keyPath: keyPath, problem.message, fix: problem.fix) }
            }
        }
        return step
    }

    private mutating func closeAction(_ value: SourceValue, keyPath: String) -> WebSocketScript.Action? {
        guard let entries = value.dictionaryValue else {
            wrongType(value, keyPath: keyPath, expected: "a close such as {\"code\": 1000, \"reason\": \"done\"}")
            return nil
        }
        var code = 1000, reason = ""
        var seen: SeenKeys = []
        for entry in entries {
            guard checkDuplicate(entry, keyPath: keyPath, seen: &seen) else { continue }
            let path = "\(keyPath).\(entry.key)"
            switch RuleKey.WebSocketCloseKey(rawValue: entry.key) {
            case .code:
                guard let given = integer(entry.value, keyPath: path) else { return nil }
                guard WebSocketScript.isSendableCloseCode(given) else {
                    report(.invalidValue, at: entry.value.position, keyPath: path, "close code \(given) cannot be sent (RFC 6455 section 7.4)",
                           fix: "use 1000 (normal), 1001 (going away), 1008 (policy), 1011 (server error) or 3000-4999 for your own")
                    return nil
                }
                code = given
            case .reason:
                guard let text = string(entry.value, keyPath: path) else { return nil }
                guard text.utf8.count <= 123 else {
                    report(.invalidValue, at: entry.value.position, keyPath: path, "a close reason is \(text.utf8.count) bytes; the limit is 123 (RFC 6455)", fix: "shorten it")
                    return nil
                }
                reason = text
            case nil: unknownKey(entry, keyPath: keyPath, candidates: RuleKey.WebSocketCloseKey.allCases.map(\.rawValue))
            }
        }
        return .close(code: UInt16(code), reason: reason)
    }

    private mutating func reply(_ value: SourceValue, options: StepOptions, keyPath: String) -> WebSocketScript.Reply? {
        guard let entries = value.dictionaryValue else {
            wrongType(value, keyPath: keyPath, expected: "a reply (when, send, setState)")
            return nil
        }
        var reply = WebSocketScript.Reply(conditions: [], steps: [], keyPath: keyPath)
        var seen: SeenKeys = []
        for entry in entries {
            guard checkDuplicate(entry, keyPath: keyPath, seen: &seen) else { continue }
            let path = "\(keyPath).\(entry.key)"
            switch RuleKey.WebSocketReplyKey(rawValue: entry.key) {
            case .when: reply.conditions = bodyMatchers(entry.value, keyPath: path)
            case .send: reply.steps = steps(entry.value, options: options, keyPath: path)
            case .setState: reply.setState = string(entry.value, keyPath: path)
            case nil: unknownKey(entry, keyPath: keyPath, candidates: RuleKey.WebSocketReplyKey.allCases.map(\.rawValue))
            }
        }
        if !entries.contains(where: { $0.key == RuleKey.WebSocketReplyKey.send.rawValue || $0.key == RuleKey.WebSocketReplyKey.setState.rawValue }) {
            report(.missingKey, at: value.position, keyPath: keyPath, "the reply does nothing", fix: "add 'send' with the messages to answer with")
        }
        return reply
    }

    private mutating func periodic(_ value: SourceValue, options: StepOptions, keyPath: String) -> WebSocketScript.Periodic? {
        guard let entries = value.dictionaryValue else {
            wrongType(value, keyPath: keyPath, expected: "a periodic message (interval, send, times)")
            return nil
        }
        var interval: TimeInterval?, steps: [WebSocketScript.Step] = [], times: Int?
        var seen: SeenKeys = []
        for entry in entries {
            guard checkDuplicate(entry, keyPath: keyPath, seen: &seen) else { continue }
            let path = "\(keyPath).\(entry.key)"
            switch RuleKey.WebSocketPeriodicKey(rawValue: entry.key) {
            case .interval:
                guard let seconds = delay(entry.value, keyPath: path) else { continue }
                if seconds > 0 { interval = seconds } else {
                    report(.invalidValue, at: entry.value.position, keyPath: path, "an interval of 0 s would send without pause", fix: "give a positive number of seconds")
                }
            case .send: steps = self.steps(entry.value, options: options, keyPath: path)
            case .times:
                guard let count = integer(entry.value, keyPath: path) else { continue }
                if count > 0 { times = count } else {
                    report(.invalidValue, at: entry.value.position, keyPath: path, "'times' is \(count)", fix: "give a positive count, or leave 'times' out to repeat until the connection closes")
                }
            case nil: unknownKey(entry, keyPath: keyPath, candidates: RuleKey.WebSocketPeriodicKey.allCases.map(\.rawValue))
            }
        }
        guard let interval else {
            if !entries.contains(where: { $0.key == RuleKey.WebSocketPeriodicKey.interval.rawValue }) {
                report(.missingKey, at: value.position, keyPath: keyPath, "the periodic message has no 'interval'", fix: "add \"interval\": 5 (seconds)")
            }
            return nil
        }
        return WebSocketScript.Periodic(interval: interval, steps: steps, times: times)
    }

    /// A WebSocket rule answers with its conversation: no body, events, status, throttle or sequence, and only `GET`.
    mutating func checkWebSocketRule(_ draft: inout RuleDraft, entries: [SourceValue.Entry], keyPath: String) {
        let excluded: Set<String> = [RuleKey.response, .jsonFile, .body, .inlineResponse, .json, .events, .keepOpen, .status, .statusCode,
                                     .throttle, .responses, .afterLast].reduce(into: []) { $0.insert($1.rawValue) }
        for entry in entries where excluded.contains(entry.key) {
            report(.conflictingKeys, at: entry.keyPosition, keyPath: "\(keyPath).\(entry.key)",
                   "'webSocket' answers with a conversation, so '\(entry.key)' would never be used",
                   fix: "remove '\(entry.key)', or make it a rule of its own")
        }
        if let methods = draft.request.methods, methods != ["GET"], let entry = entries.first(where: { $0.key == RuleKey.method.rawValue || $0.key == RuleKey.httpMethod.rawValue }) {
            report(.invalidValue, at: entry.value.position, keyPath: "\(keyPath).\(entry.key)", "a WebSocket opens with a GET request",
                   fix: "remove 'method' or write \"GET\"")
        }
        draft.request.methods = ["GET"]
        draft.request.webSocketUpgrade = true
    }

    /// An event's or a reply's `setState` moves the rule's scenario, so the rule needs one.
    mutating func checkStreamedStates(of draft: RuleDraft, sequence: ResponseSequence?, webSocket: WebSocketScript?,
                                      entries: [SourceValue.Entry], keyPath: String) {
        guard draft.scenario == nil else { return }
        var found: (path: String, position: SourcePosition?)?
        let responses = sequence?.responses ?? [draft.response]
        for (r, response) in responses.enumerated() {
            guard let index = response.events?.events.firstIndex(where: { $0.setState != nil }) else { continue }
            let owner = sequence == nil ? keyPath : "\(keyPath).responses[\(r)]"
            found = ("\(owner).events[\(index)].setState", response.events!.events[index].position)
            break
        }
        if found == nil, let reply = webSocket?.replies.first(where: { $0.setState != nil }) {
            found = ("\(reply.keyPath).setState", entries.first { $0.key == RuleKey.webSocket.rawValue }?.value.position)
        }
        guard let found else { return }
        report(.missingKey, at: found.position, keyPath: found.path, "'setState' needs the rule's 'scenario' to belong to",
               fix: "add \"scenario\": \"NAME\" to the rule")
    }
}
