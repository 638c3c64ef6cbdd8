import Foundation

/// Compiles every `formula` of a definition into a ``FormulaPlan``: parses it, resolves its key
/// paths as `visibleWhen` resolves them, checks its types, and orders the computed inputs so each
/// comes after those it reads, reporting cycles.
struct FormulaCompiler {
    /// A computed input found in the tree, before its formula is resolved.
    private struct Found {
        var order: Int
        var pointer: String
        var spec: InputSpec
        var syntax: FormulaSyntax
        var containers: [ContainerStep]
        var scopes: [[FormNode]]
        var ancestors: [Int]
    }

    private var found: [Found] = []
    /// The formula index of each computed input, by its form-order position.
    private var indexByOrder: [Int: Int] = [:]
    private var problems: [DefinitionProblem] = []

    /// The input types a formula may fill: their values are what a formula gives.
    private static let computable: Set<InputType> = [.text, .integer, .decimal]

    /// Compiles the formulas in `nodes`, marking each computed input with its ``InputSpec/formulaIndex``;
    /// nil when the form has none. Problems are added to `decoder`; a stored definition whose
    /// formulas do not compile reads as one without computed inputs, since it may come from before
    /// `formula` existed and carry the name as an extra of its own.
    static func compile(_ nodes: inout [FormNode], decoder: inout DefinitionDecoder) -> FormulaPlan? {
        let unmarked = nodes
        var compiler = FormulaCompiler()
        let plan = compiler.plan(&nodes)
        if !compiler.problems.isEmpty, !decoder.newChecks {
            nodes = unmarked
            return nil
        }
        decoder.problems += compiler.problems
        return plan
    }

    private mutating func plan(_ nodes: inout [FormNode]) -> FormulaPlan? {
        collect(&nodes, containers: [], scopes: [nodes], ancestors: [])
        guard !found.isEmpty else { return nil }
        var sites: [FormulaSite] = []
        var dependencies: [[Int]] = []
        for item in found {
            var deps: [Int] = []
            let resolved = resolve(item.syntax, in: item, dependencies: &deps)
            dependencies.append(deps)
            var expression = FormulaExpression.constant(.empty)
            if let (compiled, type) = resolved {
                let fits = item.spec.type == .text ? type == .number || type == .text : type == .number
                if fits {
                    expression = compiled
                } else {
                    problem(item.pointer + "/formula", .badFormula,
                                     "This formula gives \(type.name), which a \"\(item.spec.type.rawValue)\" input cannot hold.")
                }
            }
            sites.append(FormulaSite(containers: item.containers, rule: InputRule(item.spec, nil, slot: nil), expression: expression))
        }
        checkConditions(nodes)
        guard let order = order(dependencies) else { return nil }
        return FormulaPlan(sites: sites, order: order)
    }

    private mutating func problem(_ pointer: String, _ code: DefinitionProblem.Code, _ message: String) {
        problems.append(DefinitionProblem(pointer: pointer, code: code, message: message))
    }

    // MARK: Collecting

    private mutating func collect(_ nodes: inout [FormNode], containers: [ContainerStep], scopes: [[FormNode]], ancestors: [Int]) {
        for i in nodes.indices {
            let raw = nodes[i].source["formula"]
            switch nodes[i].kind {
            case .section(var children):
                if raw != nil { problem(nodes[i].pointer + "/formula", .notApplicable, "\"formula\" does not apply to a \"section\".") }
                collect(&children, containers: containers, scopes: scopes, ancestors: ancestors)
                nodes[i].kind = .section(children: children)
            case .group(var group):
                if raw != nil { problem(nodes[i].pointer + "/formula", .notApplicable, "\"formula\" does not apply to a \"group\".") }
                collect(&group.children, containers: containers + [ContainerStep(key: group.id, repeats: group.repeatBounds != nil)],
                        scopes: scopes + [group.children], ancestors: ancestors + [nodes[i].order])
                nodes[i].kind = .group(group)
            case .input(var spec):
                guard let raw else { continue }
                let pointer = nodes[i].pointer + "/formula"
                guard Self.computable.contains(spec.type) else {
                    problem(pointer, .notApplicable, "\"formula\" does not apply to a \"\(spec.type.rawValue)\" input; compute a text, integer or decimal.")
                    continue
                }
                guard let text = raw.stringValue else {
                    problem(pointer, .invalidType, "\"formula\" must be a string, like \"price * quantity\".")
                    continue
                }
                let syntax: FormulaSyntax
                do {
                    syntax = try FormulaParser.parse(text)
                } catch {
                    let code: DefinitionProblem.Code = error.message.contains("at most") || error.message.contains("nested more") ? .tooLarge : .badFormula
                    problem(pointer, code, "The formula does not parse (at character \(error.position)): \(error.message).")
                    continue
                }
                spec.formulaIndex = found.count
                nodes[i].kind = .input(spec)
                indexByOrder[nodes[i].order] = found.count
                found.append(Found(order: nodes[i].order, pointer: nodes[i].pointer, spec: spec, syntax: syntax,
                                   containers: containers, scopes: scopes, ancestors: ancestors))
            }
        }
    }

    // MARK: Resolving and typing

    private mutating func resolve(_ syntax: FormulaSyntax, in site: Found, dependencies: inout [Int]) -> (FormulaExpression, FormulaType)? {
        let pointer = site.pointer + "/formula"
        func bad(_ position: Int, _ message: String) -> (FormulaExpression, FormulaType)? {
            problem(pointer, .badFormula, "At character \(position): \(message)")
            return nil
        }
        switch syntax {
        case .number(let n): return (.constant(.number(n)), .number)
        case .text(let s): return (.constant(.text(s)), .text)
        case .path(let segments, let position):
            guard let (node, read, _) = locate(segments, column: nil, position: position, in: site) else { return nil }
            if let index = indexByOrder[node.order] { dependencies.append(index) }
            return (.read(read), Self.type(of: read.kind))
        case .column(let toRepeat, let item, let position):
            guard let (node, read, repeatKeys) = locate(item, column: toRepeat, position: position, in: site) else { return nil }
            if let index = indexByOrder[node.order] { dependencies.append(index) }
            guard Self.type(of: read.kind) == .number else {
                return bad(position, "\(Self.pathText(toRepeat, item)) is not a number; sum, min and max take numbers.")
            }
            return (.column(depth: read.depth, toRepeat: repeatKeys, read: read), .column)
        case .negate(let inner, let position):
            guard let (e, t) = resolve(inner, in: site, dependencies: &dependencies) else { return nil }
            guard t == .number else { return bad(position, "\"-\" takes a number, not \(t.name).") }
            return (.negate(e), .number)
        case .binary(let op, let left, let right, let position):
            let l = resolve(left, in: site, dependencies: &dependencies)
            let r = resolve(right, in: site, dependencies: &dependencies)
            guard let (le, lt) = l, let (re, rt) = r else { return nil }
            guard let type = combined(op, lt, rt, at: position, pointer: pointer) else { return nil }
            return (.binary(op, le, re), type)
        case .chain(let first, let links):
            let head = resolve(first, in: site, dependencies: &dependencies)
            let operands = links.map { resolve($0.operand, in: site, dependencies: &dependencies) }
            guard let (headExpression, headType) = head else { return nil }
            var type = headType
            var compiled: [(op: FormulaOperator, operand: FormulaExpression)] = []
            for (link, operand) in zip(links, operands) {
                guard let (expression, operandType) = operand else { return nil }
                guard let next = combined(link.op, type, operandType, at: link.position, pointer: pointer) else { return nil }
                type = next
                compiled.append((link.op, expression))
            }
            return (.chain(headExpression, compiled), type)
        case .call(let function, let arguments, let position):
            var compiled: [(FormulaExpression, FormulaType)] = []
            for argument in arguments {
                if let c = resolve(argument, in: site, dependencies: &dependencies) { compiled.append(c) }
            }
            guard compiled.count == arguments.count else { return nil }
            let types = compiled.map(\.1)
            let expressions = compiled.map(\.0)
            switch function {
            case .sum, .min, .max:
                guard !types.isEmpty, types.allSatisfy({ $0 == .number || $0 == .column }) else {
                    return bad(position, "\(function.rawValue)() takes one or more numbers or columns (items[].price).")
                }
                return (.aggregate(function, expressions), .number)
            case .round:
                guard arguments.count == 2, types[0] == .number, case .number(let places) = arguments[1],
                      places >= 0, places <= 10, places == FormulaNumber.round(places, places: 0) else {
                    return bad(position, "round() takes a number and a whole number of places from 0 to 10: round(total, 2).")
                }
                return (.round(expressions[0], places: NSDecimalNumber(decimal: places).intValue), .number)
            case .if:
                guard arguments.count == 3, types[0] == .boolean, types[1] == types[2], types[1] == .number || types[1] == .text else {
                    return bad(position, "if() takes a comparison (or a switch), then two numbers or two texts: if(age >= 18, \"adult\", \"minor\").")
                }
                return (.choose(expressions[0], expressions[1], expressions[2]), types[1])
            case .concat:
                guard !types.isEmpty, types.allSatisfy({ $0 == .number || $0 == .text }) else {
                    return bad(position, "concat() takes one or more texts or numbers.")
                }
                return (.concat(expressions), .text)
            }
        }
    }

    /// The type `op` gives for operands of types `lt` and `rt`; nil after reporting a mismatch.
    private mutating func combined(_ op: FormulaOperator, _ lt: FormulaType, _ rt: FormulaType, at position: Int,
                                   pointer: String) -> FormulaType? {
        let message: String
        switch op {
        case .join:
            if [.number, .text].contains(lt), [.number, .text].contains(rt) { return .text }
            message = "\"&\" joins text and numbers, not \(lt == .number || lt == .text ? rt.name : lt.name)."
        case _ where op.isComparison:
            let equality = op == .equal || op == .notEqual
            if lt == rt, lt == .number || lt == .text || (equality && lt == .boolean) { return .boolean }
            message = "\"\(op.rawValue)\" compares two numbers or two texts, not \(lt.name) and \(rt.name)."
        default:
            if lt == .number, rt == .number { return .number }
            message = "\"\(op.rawValue)\" takes numbers, not \(lt == .number ? rt.name : lt.name); join text with \"&\"."
        }
        problem(pointer, .badFormula, "At character \(position): \(message)")
        return nil
    }

    private static func type(of kind: FormulaRead.Kind) -> FormulaType {
        switch kind {
        case .number, .digits, .option: .number
        case .text: .text
        case .boolean: .boolean
        }
    }

    private static func pathText(_ toRepeat: [String], _ item: [String]) -> String {
        (toRepeat.isEmpty ? "" : toRepeat.joined(separator: ".") + "[].") + item.joined(separator: ".")
    }

    /// Resolves `segments` (inside the repeat `column` names, when given) from the innermost scope of
    /// `site` outwards, as `visibleWhen` does. For a column, `read.keys` lead from an item to the
    /// input and the third value from `read.depth` to the repeat.
    private mutating func locate(_ segments: [String], column: [String]?, position: Int,
                                 in site: Found) -> (FormNode, FormulaRead, [String])? {
        let pointer = site.pointer + "/formula"
        let text = Self.pathText(column ?? [], segments)
        if let column {
            switch KeyPathWalk.resolve(column, scopes: site.scopes, ancestors: site.ancestors, wantRepeat: true) {
            case .found(let group, let depth, let keys):
                guard case .group(let spec) = group.kind else { return nil }
                // Never a column read once per item of another repeat: that would be quadratic.
                let innermost = site.containers.lastIndex(where: \.repeats).map { $0 + 1 } ?? 0
                guard depth >= innermost else {
                    problem(pointer, .badFormula, "At character \(position): \(text) is a column of a repeat outside this input's own item; sum it in an input outside that repeat.")
                    return nil
                }
                guard case .found(let node, _, let inner) = KeyPathWalk.walkPlain(segments, nodes: spec.children) else {
                    problem(pointer, .unknownField, "At character \(position): \(text) names no input of the repeat (a repeat nested in it cannot be summed through).")
                    return nil
                }
                guard let kind = readKind(node, text: text, position: position, pointer: pointer) else { return nil }
                return (node, FormulaRead(depth: depth, keys: inner, kind: kind), keys)
            case .throughRepeat: return throughRepeat(text, position: position, pointer: pointer)
            case .notFound: return unknown(text, position: position, pointer: pointer)
            }
        }
        switch KeyPathWalk.resolve(segments, scopes: site.scopes, ancestors: site.ancestors, wantRepeat: false) {
        case .found(let node, let depth, let keys):
            if node.order == site.order {
                problem(pointer, .formulaCycle, "At character \(position): the formula reads its own input \(text).")
                return nil
            }
            guard let kind = readKind(node, text: text, position: position, pointer: pointer) else { return nil }
            return (node, FormulaRead(depth: depth, keys: keys, kind: kind), [])
        case .throughRepeat: return throughRepeat(text, position: position, pointer: pointer)
        case .notFound: return unknown(text, position: position, pointer: pointer)
        }
    }

    private mutating func throughRepeat(_ text: String, position: Int, pointer: String) -> (FormNode, FormulaRead, [String])? {
        problem(pointer, .badFormula, "At character \(position): \(text) stands inside a repeating group, which has one value per item; sum its column instead, like sum(items[].total).")
        return nil
    }

    private mutating func unknown(_ text: String, position: Int, pointer: String) -> (FormNode, FormulaRead, [String])? {
        problem(pointer, .unknownField, "At character \(position): no input has the key path \(text) here; name an input that exists (e.g. address.line1).")
        return nil
    }

    /// How a formula reads `node`'s stored value; nil (and a problem) for values it cannot read.
    private mutating func readKind(_ node: FormNode, text: String, position: Int, pointer: String) -> FormulaRead.Kind? {
        guard case .input(let spec) = node.kind else { return nil }
        switch spec.type {
        case .integer, .decimal, .count: return .number
        case .numerical: return .digits
        case .switch: return .boolean
        case .select where !spec.multiple:
            var values: [String: Decimal] = [:]
            for option in node.source["options"]?.arrayValue ?? [] {
                guard let id = option["id"]?.stringValue, let value = option["value"] else { continue }
                guard let n = value.numberValue, let d = FormulaNumber.read(n) else {
                    problem(pointer, .badFormula, "At character \(position): the options of \(text) carry a \"value\" that is not a number below 10^30.")
                    return nil
                }
                values[id] = d
            }
            return values.isEmpty ? .text : .option(values)
        case .select, .file:
            problem(pointer, .badFormula, "At character \(position): \(text) holds \(spec.type == .file ? "files" : "several choices"), which a formula cannot read.")
            return nil
        default: return .text
        }
    }

    // MARK: Order

    /// The sites in an order where each comes after those it reads (Kahn's algorithm, no
    /// recursion); nil after reporting a cycle, named input by input.
    private mutating func order(_ dependencies: [[Int]]) -> [Int]? {
        var waiting = dependencies.map(\.count)
        var readers = Array(repeating: [Int](), count: dependencies.count)
        for (site, deps) in dependencies.enumerated() { for dep in deps { readers[dep].append(site) } }
        var ready = waiting.indices.filter { waiting[$0] == 0 }
        var out: [Int] = []
        while let next = ready.popLast() {
            out.append(next)
            for reader in readers[next] {
                waiting[reader] -= 1
                if waiting[reader] == 0 { ready.append(reader) }
            }
        }
        guard out.count < dependencies.count else { return out }
        // Every site left waits on another one left: walking back along those reaches a cycle.
        var seen: [Int: Int] = [:]
        var path: [Int] = []
        var current = waiting.indices.first { waiting[$0] > 0 }!
        while seen[current] == nil {
            seen[current] = path.count
            path.append(current)
            current = dependencies[current].first { waiting[$0] > 0 }!
        }
        let cycle = Array(path[seen[current]!...]).reversed() + [path[seen[current]!]]
        let names = cycle.map { found[$0].spec.id }.joined(separator: " → ")
        problem(found[cycle.first!].pointer + "/formula", .formulaCycle, "Computed inputs read each other in a cycle: \(names); break it.")
        return nil
    }

    // MARK: Conditions

    /// A condition cannot name a computed input: conditions are decided while the values are read,
    /// before anything is computed.
    private mutating func checkConditions(_ nodes: [FormNode]) {
        for node in nodes {
            for (key, condition) in [("visibleWhen", node.visibleWhen), ("enabledWhen", node.enabledWhen)] {
                guard let condition, condition.slots.contains(where: { indexByOrder[$0] != nil }) else { continue }
                problem(node.pointer + "/" + key, .badCondition, "A condition cannot name a computed input: its value is computed after the conditions are decided.")
            }
            for (i, condition) in node.updateConditions where condition.slots.contains(where: { indexByOrder[$0] != nil }) {
                problem(node.pointer + "/updates/\(i)/when", .badCondition, "An update's condition cannot name a computed input: updates run when a person changes an input, and no one changes a computed one.")
            }
            switch node.kind {
            case .section(let children): checkConditions(children)
            case .group(let group): checkConditions(group.children)
            case .input: break
            }
        }
    }
}
