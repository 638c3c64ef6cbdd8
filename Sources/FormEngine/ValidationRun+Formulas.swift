import Foundation

extension ValidationRun {
    /// Computes every visible computed input after the walk, in dependency order: each value is
    /// checked by its input's own rules (errors at the instance's key path), then stored in `values`
    /// in place of the walk's placeholder, or removed when empty or refused. Returns the computed
    /// values by key path (`items[0].total`), as computed (null when empty), in the order computed.
    mutating func compute(_ plan: FormulaPlan, in values: inout JSONObject, evaluator: inout FormulaEvaluator) -> JSONObject {
        var computed = JSONObject()
        for index in plan.order {
            let site = plan.sites[index]
            var chains: [[JSONObject]] = []
            Self.instances(of: site, in: values, containers: site.containers[...], chain: [values], into: &chains)
            let paths = computedPaths[index]
            var results: [JSONValue?] = []
            results.reserveCapacity(chains.count)
            for (k, chain) in chains.enumerated() {
                let value = evaluator.evaluate(site.expression, chain)
                var text = FormulaEvaluator.text(value)
                // A `decimal` stores the nearest `Double`, as for a typed number: a quotient that never
                // ends (`10 / 3`) is kept to the digits it holds rather than refused as too precise,
                // which no one filling the form in could mend.
                if site.rule.spec.type == .decimal, case .number = value, let exact = text, let double = Double(exact),
                   let kept = DecimalText(double) {
                    // Written out in plain digits (`0.00001`, not `1e-05`), as the rule reads them.
                    text = kept.text
                }
                path = k < paths.count ? paths[k] : []
                // Judged as the exact text a person could have typed, not the `Double` answered: an
                // `integer` or `decimal` then keeps to the digits it stores, as a typed one does.
                results.append(check(site.rule, text.map { .string($0) } ?? .null))
                computed.append(fieldPath.isEmpty ? site.rule.spec.id : fieldPath + "." + site.rule.spec.id,
                                Self.answered(value, text: text, for: site.rule.spec.type))
            }
            path = []
            var next = 0
            Self.store(results, of: site, in: &values, containers: site.containers[...], next: &next)
        }
        return computed
    }

    /// A computed value as `computed` answers it, from its canonical `text`: a number for
    /// `integer`/`decimal`, the text for `text`; null when empty.
    private static func answered(_ value: FormulaValue, text: String?, for type: InputType) -> JSONValue {
        guard let text else { return .null }
        if case .number = value, type != .text { return .number(Double(text) ?? .nan) }
        return .string(text)
    }

    /// The chains of enclosing objects of each instance of `site` the walk left a placeholder for.
    private static func instances(of site: FormulaSite, in object: JSONObject, containers: ArraySlice<ContainerStep>,
                                  chain: [JSONObject], into chains: inout [[JSONObject]]) {
        guard let step = containers.first else {
            if object.position(of: site.rule.spec.id) != nil { chains.append(chain) }
            return
        }
        switch object[step.key] {
        case .object(let inner)? where !step.repeats:
            instances(of: site, in: inner, containers: containers.dropFirst(), chain: chain + [inner], into: &chains)
        case .array(let items)? where step.repeats:
            for case .object(let item) in items {
                instances(of: site, in: item, containers: containers.dropFirst(), chain: chain + [item], into: &chains)
            }
        default: break
        }
    }

    /// Writes `results` over the placeholders, in the order `instances` found them; nil removes one.
    private static func store(_ results: [JSONValue?], of site: FormulaSite, in object: inout JSONObject,
                              containers: ArraySlice<ContainerStep>, next: inout Int) {
        guard let step = containers.first else {
            guard object.position(of: site.rule.spec.id) != nil, next < results.count else { return }
            object[site.rule.spec.id] = results[next]
            next += 1
            return
        }
        guard let value = object[step.key] else { return }
        // Emptied first, so the nested values are not shared and change in place.
        object[step.key] = .null
        switch value {
        case .object(var inner) where !step.repeats:
            store(results, of: site, in: &inner, containers: containers.dropFirst(), next: &next)
            // A group left with no values is dropped, as the walk drops one.
            object[step.key] = inner.isEmpty ? nil : .object(inner)
        case .array(var items) where step.repeats:
            for i in items.indices {
                guard case .object(var item) = items[i] else { continue }
                items[i] = .null
                store(results, of: site, in: &item, containers: containers.dropFirst(), next: &next)
                items[i] = .object(item)
            }
            object[step.key] = .array(items)
        default:
            object[step.key] = value
        }
    }
}
