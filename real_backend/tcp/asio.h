#pragma once
// The one header that includes Boost.Asio. Boost 1.74's Asio needs <utility>
// before any Asio header under -std=c++20 with g++ 12 (std::exchange in
// asio/awaitable.hpp), so it comes first here and nowhere else includes Asio.

// clang-format off
#include <utility>
#include <boost/asio.hpp>
// clang-format on

namespace compopt::tcp {

namespace asio = boost::asio;
using asio::ip::tcp;
using ErrorCode = boost::system::error_code;

}  // namespace compopt::tcp
