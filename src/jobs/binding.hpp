#pragma once
// A model is its parameter struct (docs/design_models.md "Bound parameters"): each parameter is declared
// once, next to the field of the model's job struct its value lands in. Binding<Job> turns the checked, typed
// Values of a run into a Job, so a job reads fields and never a parameter by its name:
//
//   Binding<WalkLossJob> bind;
//   m.parameters = {bind(real("alpha", "Renyi order").fallback("2").range(above(1)),
//                        &WalkLossJob::params, &WalkLossParams::alpha),
//                   bind(flag("no-matrix", "..."), [](WalkLossJob& j, bool off) { j.write_matrix = !off; }),
//                   bind(choice("method", "...", {"spectral", "finite"}).fallback("spectral"),
//                        [](WalkLossJob& j, const std::string& m) { j.params.method = parse_method(m); })};
//   m.validate = bind.check(check_walk_loss_job);
//   m.execute = bind.run(run_walk_loss_job);
//
// Model::run calls validate (with the parameters' own checks) before execute, for the CLI, studies and Python
// alike, so a run function need not check its job again.
//
// A binding is a chain of member pointers (the field) or a setter `(Job&, T)`; the field's or the setter's
// type T says how the value converts: bool (flag), int (integer, at most 2^31 - 1), std::int64_t (integer;
// declared wide automatically), std::uint64_t (natural), double (real), std::string (text, choice),
// std::vector<double> (reals), CountOrAuto (count_or_auto; 32-bit unless declared .wide()); std::optional<T>
// stays empty when the parameter has neither a value nor a default. The setters run in the order of the
// declarations.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/progress.hpp"  // Stopwatch
#include "jobs/model_parts.hpp"
#include "netdp/io/run_result.hpp"

namespace netdp::jobs {

/// An integer or the word "auto" (steps).
struct CountOrAuto {
  bool is_auto = false;
  std::int64_t count = 0;
};

namespace binding_detail {

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

/// The value type a setter lambda `(Job&, T)` takes.
template <class F>
struct setter_argument : setter_argument<decltype(&F::operator())> {};
template <class C, class R, class J, class A>
struct setter_argument<R (C::*)(J&, A) const> {
  using type = std::decay_t<A>;
};

/// The value of parameter `p` as a T (the conversions of the header comment).
template <class T>
T value_as(const Values& v, const Parameter& p) {
  const std::string& name = p.name;
  if constexpr (std::is_same_v<T, bool>)
    return v.flag(name);
  else if constexpr (std::is_same_v<T, int>)
    return static_cast<int>(v.integer(name));  // refused beyond 32 bits at conversion (not wide)
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return v.integer(name);
  else if constexpr (std::is_same_v<T, std::uint64_t>)
    return v.natural(name);
  else if constexpr (std::is_same_v<T, double>)
    return v.real(name);
  else if constexpr (std::is_same_v<T, std::string>)
    return v.text(name);
  else if constexpr (std::is_same_v<T, std::vector<double>>)
    return v.reals(name);
  else if constexpr (std::is_same_v<T, CountOrAuto>)
    return v.is_auto(name) ? CountOrAuto{true, 0} : CountOrAuto{false, v.integer(name)};
  else
    static_assert(sizeof(T) == 0, "no conversion of a parameter value to this field type");
}

/// A declaration that lands in a 64-bit field needs no 32-bit check.
template <class T>
void declare_width(Parameter& p) {
  if constexpr (std::is_same_v<T, std::int64_t>) p.wide = true;  // CountOrAuto: wide only when declared
}

/// Stores `value` into `field`, an optional's empty state kept when the parameter has no value.
template <class Field>
void store(Field& field, const Values& v, const Parameter& p) {
  if constexpr (is_optional<Field>::value) {
    if (v.has(p.name))
      field = value_as<typename Field::value_type>(v, p);
    else
      field.reset();
  } else {
    field = value_as<Field>(v, p);
  }
}

template <class Object, class Member, class... Rest>
auto& follow(Object& object, Member member, Rest... rest) {
  if constexpr (sizeof...(Rest) == 0)
    return object.*member;
  else
    return follow(object.*member, rest...);
}

}  // namespace binding_detail

template <class Job>
class Binding {
 public:
  using Setter = std::function<void(Job&, const Values&)>;

  /// Binds `declaration` to the field at the end of a chain of member pointers (&Job::params, &P::alpha).
  template <class Member, class... Rest>
  requires std::is_member_object_pointer_v<Member> Parameter operator()(Parameter declaration, Member member,
                                                                        Rest... rest) {
    using Field = std::decay_t<decltype(binding_detail::follow(std::declval<Job&>(), member, rest...))>;
    if constexpr (binding_detail::is_optional<Field>::value)
      binding_detail::declare_width<typename Field::value_type>(declaration);
    else
      binding_detail::declare_width<Field>(declaration);
    setters_.push_back([p = declaration, member, rest...](Job& job, const Values& v) {
      binding_detail::store(binding_detail::follow(job, member, rest...), v, p);
    });
    return declaration;
  }

  /// Binds `declaration` to a setter `(Job&, T)`, for values that land in several fields or are transformed
  /// (a negated flag, GiB to bytes). The setter runs only when the parameter has a value.
  template <class F>
  requires(!std::is_member_object_pointer_v<F>) Parameter operator()(Parameter declaration, F setter) {
    using T = typename binding_detail::setter_argument<F>::type;
    binding_detail::declare_width<T>(declaration);
    setters_.push_back([p = declaration, setter](Job& job, const Values& v) {
      if (v.has(p.name)) setter(job, binding_detail::value_as<T>(v, p));
    });
    return declaration;
  }

  /// Also records whether the parameter was given (not its default) in a bool field: several given
  /// parameters set it (a warning that only explicit choices deserve).
  Parameter mark_given(Parameter declaration, bool Job::*field) {
    setters_.push_back([name = declaration.name, field](Job& job, const Values& v) {
      if (v.given(name)) job.*field = true;
    });
    return declaration;
  }

  /// The job of a run: every bound field from the values, the run's context (output directory, progress,
  /// invocation) in the fields that take it.
  Job make(const Values& v, const RunContext& context = {}) const {
    Job job;
    for (const auto& set : setters_) set(job, v);
    if constexpr (requires { job.out_dir; }) job.out_dir = context.out_dir.string();
    if constexpr (requires { job.progress; }) job.progress = !context.quiet;
    if constexpr (requires { job.invocation; }) job.invocation = context.invocation;
    return job;
  }

  /// The model's functions on the job instead of the values.
  template <class Check>
  std::function<void(const Values&)> check(Check check) const {
    return [self = *this, check](const Values& v) { check(self.make(v)); };
  }
  /// A run returns its typed result and the writer stage writes it (docs/outputs.md "The writer stage"):
  /// `run` is `RunResult(const Job&)`, or `RunResult(const Job&, const ResultsDir&)` for a run that streams a
  /// matrix too large to hold into the directory while it goes.
  template <class Run>
  std::function<nlohmann::json(const Values&, const RunContext&)> run(Run run) const {
    return [self = *this, run](const Values& v, const RunContext& c) {
      const Job job = self.make(v, c);
      const Stopwatch clock;
      if constexpr (std::is_invocable_v<Run, const Job&, const ResultsDir&>) {
        ResultsDir out(c.out_dir);
        const RunResult result = run(job, std::as_const(out));
        return write_results(out, result, clock.seconds());
      } else {
        const RunResult result = run(job);
        return write_results(c.out_dir, result, clock.seconds());
      }
    };
  }
  template <class Resources>
  std::function<Estimate(const Values&)> estimate(Resources resources) const {
    return [self = *this, resources](const Values& v) { return resources(self.make(v)); };
  }

 private:
  std::vector<Setter> setters_;
};

}  // namespace netdp::jobs
