// The one list of error kinds (axle/error_kinds.h): every row maps both ways
// (class <-> plugin status, class <-> conformance name), and
// AXLE_INTERNAL_ASSERT throws InternalError.
#include <axle/conformance.h>
#include <axle/error_kinds.h>
#include <doctest/doctest.h>

#include <set>
#include <string>

using namespace axle;

TEST_CASE("each error kind's class is thrown, recognised and named by the list") {
  std::set<std::string_view> names, python_names;
  for (const ErrorKind& k : kErrorKinds) {
    CAPTURE(k.name);
    CHECK(names.insert(k.name).second);
    CHECK(python_names.insert(k.python_name).second);
    CHECK(!k.python_base.empty());
    CHECK(!k.doc.empty());
    try {
      k.raise("message of " + std::string(k.name));
      FAIL("raise() returned");
    } catch (const Error& e) {  // every kind is an axle::Error
      CHECK(error_kind_of(e) == &k);
      CHECK(std::string(e.what()) == "message of " + std::string(k.name));
      CHECK(conformance::error_class(e) == k.name);
    }
  }
  CHECK(base_error_kind().name == "Error");
  CHECK(base_error_kind().python_name == "AxleError");
  CHECK(error_kind_of(std::runtime_error("not axle")) == nullptr);
}

TEST_CASE("plugin statuses map to error kinds and back") {
  std::set<axle_status> statuses;
  for (const ErrorKind& k : kErrorKinds) {
    CAPTURE(k.name);
    if (k.status == AXLE_OK) continue;  // no status of its own (SchemaError, InternalError, ...)
    CHECK(statuses.insert(k.status).second);
    CHECK(&error_kind_for_status(k.status) == &k);
  }
  // Every error status of the ABI has a kind; others become the base class.
  for (axle_status s = AXLE_ERROR_INVALID_ARGUMENT; s <= AXLE_ERROR_INTERNAL; ++s) CHECK(statuses.count(s) == 1);
  CHECK(error_kind_for_status(AXLE_ERROR_INVALID_ARGUMENT).name == "ValueError");
  CHECK(error_kind_for_status(AXLE_ERROR_INTERNAL).name == "Error");
  CHECK(&error_kind_for_status(AXLE_DECLINED) == &base_error_kind());
  CHECK(&error_kind_for_status(1000) == &base_error_kind());
}

TEST_CASE("AXLE_INTERNAL_ASSERT throws InternalError, which no user error class catches") {
  AXLE_INTERNAL_ASSERT(1 + 1 == 2, "not thrown");
  const int got = 3;
  try {
    AXLE_INTERNAL_ASSERT(got == 2, "got ", got);
    FAIL("no throw");
  } catch (const InternalError& e) {
    const std::string what = e.what();
    CHECK(what.find("internal assert failed at ") == 0);
    CHECK(what.find("test_errors.cpp:") != std::string::npos);
    CHECK(what.find("got == 2: got 3") != std::string::npos);
    CHECK(what.find("please report it") != std::string::npos);
    CHECK(error_kind_of(e)->name == "InternalError");
  }
  CHECK_THROWS_AS(AXLE_INTERNAL_ASSERT(false), Error);
  CHECK_THROWS_WITH(AXLE_INTERNAL_ASSERT(false), doctest::Contains("false (a bug in axle"));
  bool user_error_caught = false;
  try {
    AXLE_INTERNAL_ASSERT(false);
  } catch (const ValueError&) {
    user_error_caught = true;
  } catch (const InternalError&) {
  }
  CHECK(!user_error_caught);
}
