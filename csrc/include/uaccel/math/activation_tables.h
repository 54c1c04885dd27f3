#pragma once
// Written by tools/fit_activation_tables.py; do not edit. Functions F(a), 0 <= a <= (kIntervals - 1/2) w,
// each in interval k (a = k w + d, |d| <= w/2) the polynomial sum_j c_j d^j, one row of kCoefficients a
// coefficient: c_0, c_1, ... or, where kSplitConstant, c_0's high and low floats, then c_1, ... Relative
// minimax fits.

namespace uaccel::math {

// Phi(-a), the standard normal distribution's lower tail (GELU): degree 6, w = 0.1875.
struct NormalCdfTable {
  static constexpr int kIntervals = 32;
  static constexpr int kDegree = 6;
  static constexpr float kWidth = 0.1875f;
  static constexpr bool kSplitConstant = true;
  alignas(64) static constexpr float kCoefficients[8][32] = {
      // constant's high part
      {0x1p-1f,         0x1.b3d97cp-2f,  0x1.6a527ap-2f,  0x1.25c5e4p-2f,  0x1.d022p-3f,    0x1.64dd8ep-3f,
       0x1.0ad7dap-3f,  0x1.83cab6p-4f,  0x1.11a46ep-4f,  0x1.76d04ep-5f,  0x1.f20394p-6f,  0x1.40cccep-6f,
       0x1.90925p-7f,   0x1.e49cecp-8f,  0x1.1bee6cp-8f,  0x1.42297ap-9f,  0x1.61de2p-10f,  0x1.7832e6p-11f,
       0x1.8301bep-12f, 0x1.812f0ep-13f, 0x1.72d956p-14f, 0x1.595676p-15f, 0x1.36feaep-16f, 0x1.0ed0e2p-17f,
       0x1.c80728p-19f, 0x1.733238p-20f, 0x1.24149ap-21f, 0x1.bc4ed8p-23f, 0x1.46a16cp-24f, 0x1.d02498p-26f,
       0x1.3eb346p-27f, 0x1.a6f212p-29f},
      // constant's low part
      {0x1.0cp-46f,      -0x1.b49884p-27f, -0x1.fc3014p-27f, -0x1.e25e76p-29f, 0x1.5ad16ep-29f,  0x1.4d50b8p-28f,
       0x1.f38be2p-32f,  0x1.0031fap-30f,  -0x1.da6716p-30f, 0x1.713122p-31f,  0x1.d97d48p-31f,  -0x1.fe76d4p-32f,
       -0x1.bc6f0ep-32f, -0x1.2b5bb2p-34f, 0x1.f307bcp-38f,  0x1.500352p-35f,  -0x1.9f03bcp-36f, -0x1.4e7254p-36f,
       0x1.02b594p-38f,  0x1.2f45acp-39f,  0x1.30565p-40f,   -0x1.dc609p-42f,  0x1.a061fep-41f,  -0x1.5148fap-44f,
       0x1.ceabdcp-44f,  0x1.0963bap-45f,  -0x1.6600eep-49f, 0x1.b5ab08p-48f,  0x1.f15c38p-49f,  0x1.493fc8p-52f,
       -0x1.3db9c4p-52f, 0x1.4e332p-54f},
      // d^1
      {-0x1.988454p-2f,  -0x1.91661p-2f,   -0x1.7cc794p-2f,  -0x1.5cbdcp-2f,   -0x1.345d5ep-2f,  -0x1.073e62p-2f,
       -0x1.b1ec62p-3f,  -0x1.594762p-3f,  -0x1.094086p-3f,  -0x1.8977c8p-4f,  -0x1.19bfa4p-4f,  -0x1.858fbcp-5f,
       -0x1.0402ep-5f,   -0x1.4f18bcp-6f,  -0x1.a0f22cp-7f,  -0x1.f4dda6p-8f,  -0x1.227214p-8f,  -0x1.4536f2p-9f,
       -0x1.5f90f6p-10f, -0x1.6eec8cp-11f, -0x1.71b92ep-12f, -0x1.67aca4p-13f, -0x1.51cfa6p-14f, -0x1.3251p-15f,
       -0x1.0c29a6p-16f, -0x1.c54d7ep-18f, -0x1.71e57ap-19f, -0x1.2368d6p-20f, -0x1.bb4a9p-22f,  -0x1.4584e4p-23f,
       -0x1.cd8eaap-25f, -0x1.3beb6cp-26f},
      // d^2
      {0x1.bf327p-20f,  0x1.2d0c8cp-5f,  0x1.1d95acp-4f,  0x1.885576p-4f,  0x1.ce8c0ap-4f,  0x1.ed94f8p-4f,
       0x1.e829eep-4f,  0x1.c52dbp-4f,   0x1.8de0cap-4f,  0x1.4bfd1p-4f,   0x1.0823aap-4f,  0x1.91bc38p-5f,
       0x1.24833cp-5f,  0x1.986626p-6f,  0x1.119eeep-6f,  0x1.602bd8p-7f,  0x1.b3ab1ep-8f,  0x1.0327c8p-8f,
       0x1.28a24ep-9f,  0x1.46caacp-10f, 0x1.5a9d9ap-11f, 0x1.620dfp-12f,  0x1.5c5e2p-13f,  0x1.4a3f52p-14f,
       0x1.2daed6p-15f, 0x1.099b62p-16f, 0x1.c2cf9ep-18f, 0x1.70d09ep-19f, 0x1.22e8dcp-20f, 0x1.ba8082p-22f,
       0x1.44882ep-23f, 0x1.cb11dcp-25f},
      // d^3
      {0x1.1004a4p-4f,   0x1.0231c2p-4f,   0x1.b442aep-5f,   0x1.3dd7dcp-5f,   0x1.67a782p-6f,   0x1.5412f2p-8f,
       -0x1.335cdp-7f,   -0x1.4cb322p-6f,  -0x1.ba0e38p-6f,  -0x1.e4aefcp-6f,  -0x1.d87f54p-6f,  -0x1.a68b9ep-6f,
       -0x1.6018acp-6f,  -0x1.13f848p-6f,  -0x1.995854p-7f,  -0x1.206c0ap-7f,  -0x1.8342dp-8f,   -0x1.f0827ap-9f,
       -0x1.306b38p-9f,  -0x1.657ce4p-10f, -0x1.927616p-11f, -0x1.b2b94ep-12f, -0x1.c2da44p-13f, -0x1.c1322cp-14f,
       -0x1.ae2c0cp-15f, -0x1.8c1d7ep-16f, -0x1.5eddp-17f,   -0x1.2b094ep-18f, -0x1.ea9b22p-20f, -0x1.83704ep-21f,
       -0x1.269e9ap-22f, -0x1.af896ap-24f},
      // d^4
      {0x1.b5007cp-10f, -0x1.298806p-7f, -0x1.1018fp-6f,  -0x1.5ee57cp-6f,  -0x1.77b15cp-6f, -0x1.5cfdf8p-6f,
       -0x1.1a36fcp-6f, -0x1.81de2ep-7f, -0x1.8e176cp-8f, -0x1.0d180ap-10f, 0x1.6af23ap-9f,  0x1.4ff826p-8f,
       0x1.92305p-8f,   0x1.905f0ep-8f,  0x1.62d484p-8f,  0x1.20355ep-8f,   0x1.b3ab0ep-9f,  0x1.3549b4p-9f,
       0x1.9ed9d4p-10f, 0x1.07ed04p-10f, 0x1.3f8c6ap-11f, 0x1.70eedap-12f,  0x1.96e5a2p-13f, 0x1.ad3fap-14f,
       0x1.b1afb6p-15f, 0x1.a3f3ap-16f,  0x1.8613eap-17f, 0x1.5bc4aap-18f,  0x1.29c2e4p-19f, 0x1.e9e1eep-21f,
       0x1.8357ecp-22f, 0x1.267b3ap-23f},
      // d^5
      {-0x1.a723f8p-6f,  -0x1.2c74b2p-7f,  -0x1.96d2f4p-8f,  -0x1.a2ef0cp-9f,  0x1.701686p-11f,  0x1.9ba018p-9f,
       0x1.59b1d6p-8f,   0x1.94ee12p-8f,   0x1.7550dp-8f,    0x1.40d2d6p-8f,   0x1.a1c88ap-9f,   0x1.def932p-10f,
       0x1.dac75cp-12f,  -0x1.f2999ep-12f, -0x1.fb5d38p-11f, -0x1.2dc9a6p-10f, -0x1.222c2ap-10f, -0x1.e82bdcp-11f,
       -0x1.78708cp-11f, -0x1.0d05eap-11f, -0x1.66882cp-12f, -0x1.c329bep-13f, -0x1.0cab86p-13f, -0x1.303492p-14f,
       -0x1.470a56p-15f, -0x1.4ff382p-16f, -0x1.497cecp-17f, -0x1.3533fap-18f, -0x1.15a6a6p-19f, -0x1.de215ep-21f,
       -0x1.8ab38cp-22f, -0x1.38b602p-23f},
      // d^6
      {0x1.cceb92p-5f,   0x1.9121dap-10f,  0x1.12551ep-9f,   0x1.78b7eep-9f,   0x1.334688p-9f,   0x1.3cae9ap-9f,
       0x1.50a10cp-10f,  0x1.fc1092p-14f,  -0x1.7ce576p-12f, -0x1.766478p-10f, -0x1.3ec474p-10f, -0x1.81d756p-10f,
       -0x1.fa99a8p-11f, -0x1.261d2ap-11f, -0x1.1fdf6ep-12f, -0x1.af3ae4p-15f, 0x1.d043dep-14f,  0x1.5eea1ep-13f,
       0x1.847f92p-13f,  0x1.62eb44p-13f,  0x1.11835ep-13f,  0x1.8714cap-14f,  0x1.0214e6p-14f,  0x1.434c1ap-15f,
       0x1.72f288p-16f,  0x1.99e94ap-17f,  0x1.aad90ap-18f,  0x1.a7fe6ap-19f,  0x1.8f907ep-20f,  0x1.697018p-21f,
       0x1.38247ep-22f,  0x1.02250cp-23f},
  };
};

// a Phi(-a), GELU's negative side (gelu(-a) = -a Phi(-a)): degree 6, w = 0.25.
struct GeluTable {
  static constexpr int kIntervals = 32;
  static constexpr int kDegree = 6;
  static constexpr float kWidth = 0.25f;
  static constexpr bool kSplitConstant = false;
  alignas(64) static constexpr float kCoefficients[7][32] = {
      // constant
      {0x0p+0f,         0x1.9aecbap-4f,  0x1.3bf144p-3f,  0x1.5c198p-3f,   0x1.44ed0cp-3f,  0x1.0e76a2p-3f,
       0x1.9a76a4p-4f,  0x1.1f24ep-4f,   0x1.74bcf8p-5f,  0x1.c2a49ap-6f,  0x1.fcb21ep-7f,  0x1.0c832ep-7f,
       0x1.096698p-8f,  0x1.eb9b5cp-10f, 0x1.aae05p-11f,  0x1.5babcp-12f,  0x1.09ad7ap-13f, 0x1.7d1018p-15f,
       0x1.008408p-16f, 0x1.443672p-18f, 0x1.80bcbcp-20f, 0x1.acb3ep-22f,  0x1.c093dap-24f, 0x1.b8cadap-26f,
       0x1.96c96ap-28f, 0x1.609384p-30f, 0x1.1f0442p-32f, 0x1.b6e7c6p-35f, 0x1.3b34bcp-37f, 0x1.a9408p-40f,
       0x1.0d7278p-42f, 0x1.40bb6ap-45f},
      // d^1
      {0x1p-1f,          0x1.37f00cp-2f,   0x1.0f5eb8p-3f,   0x1.95f1dep-11f,  -0x1.55429ap-4f,  -0x1.f66bfcp-4f,
       -0x1.050e92p-3f,  -0x1.c65a8p-4f,   -0x1.5d1c06p-4f,  -0x1.e4e1e4p-5f,  -0x1.341c2ap-5f,  -0x1.68e62cp-6f,
       -0x1.876f5ap-7f,  -0x1.8a5ae8p-8f,  -0x1.71da9p-9f,   -0x1.437006p-10f, -0x1.080eb8p-11f, -0x1.92e552p-13f,
       -0x1.1f6ea2p-14f, -0x1.7fbf22p-16f, -0x1.df9fap-18f,  -0x1.18b3ecp-19f, -0x1.33d05p-21f,  -0x1.3c5002p-23f,
       -0x1.30aca6p-25f, -0x1.1320fcp-27f, -0x1.d1ef06p-30f, -0x1.720138p-32f, -0x1.1398e4p-34f, -0x1.812192p-37f,
       -0x1.f8ec3ap-40f, -0x1.368d6ap-42f},
      // d^2
      {-0x1.988454p-2f, -0x1.7f9296p-2f, -0x1.3b73e6p-2f, -0x1.bb4526p-3f, -0x1.ef90b6p-4f, -0x1.4742b2p-5f,
       0x1.0945a6p-6f,  0x1.777718p-5f,  0x1.ba4bfep-5f,  0x1.8e2278p-5f,  0x1.3122dp-5f,   0x1.9e60a2p-6f,
       0x1.fc4712p-7f,  0x1.1ca6aap-7f,  0x1.251c16p-8f,  0x1.16bd08p-9f,  0x1.eb282p-11f,  0x1.91db78p-12f,
       0x1.31defap-13f, 0x1.b1c584p-15f, 0x1.1ed808p-16f, 0x1.621ccp-18f,  0x1.985992p-20f, 0x1.b821c6p-22f,
       0x1.bb9f88p-24f, 0x1.a25392p-26f, 0x1.71303p-28f,  0x1.310958p-30f, 0x1.d80ac4p-33f, 0x1.561f3p-35f,
       0x1.d0a164p-38f, 0x1.27a7a2p-40f},
      // d^3
      {0x1.c06ab6p-21f,  0x1.03da18p-4f,   0x1.c2a232p-4f,   0x1.09002cp-3f,   0x1.ef8e4ep-4f,   0x1.7be48ep-4f,
       0x1.d03304p-5f,   0x1.828a6ep-6f,   0x1.212974p-21f,  -0x1.9e5d78p-7f,  -0x1.0d3d9ep-6f,  -0x1.e68c5p-7f,
       -0x1.6b0e3ap-7f,  -0x1.d8afa2p-8f,  -0x1.133d6p-8f,   -0x1.22a7b6p-9f,  -0x1.18a842p-10f, -0x1.f268fap-12f,
       -0x1.988514p-13f, -0x1.35fdc2p-14f, -0x1.b47b5ep-16f, -0x1.1d956ap-17f, -0x1.5bc90cp-19f, -0x1.8a9564p-21f,
       -0x1.a175bp-23f,  -0x1.9c28a4p-25f, -0x1.7bfcb8p-27f, -0x1.475088p-29f, -0x1.078c08p-31f, -0x1.8ce17p-34f,
       -0x1.178d9p-36f,  -0x1.708706p-39f},
      // d^4
      {0x1.104436p-4f,  0x1.d444f6p-5f,  0x1.18a59ep-5f,  0x1.21e614p-8f,  -0x1.4470f8p-6f,  -0x1.1f988cp-5f,
       -0x1.293f38p-5f, -0x1.d6645ap-6f, -0x1.27c384p-6f, -0x1.ee5008p-8f, -0x1.273b3ap-11f, 0x1.977e74p-9f,
       0x1.0adep-8f,    0x1.cd5138p-9f,  0x1.4592f4p-9f,  0x1.8d7018p-10f, 0x1.b10114p-11f,  0x1.a8da52p-12f,
       0x1.7ca6c6p-13f, 0x1.382cfcp-14f, 0x1.d7f50cp-16f, 0x1.4987a6p-17f, 0x1.aa269ap-19f,  0x1.ff50fep-21f,
       0x1.1d094p-22f,  0x1.27a65ep-24f, 0x1.1d98fcp-26f, 0x1.0129ccp-28f, 0x1.aff8fep-31f,  0x1.52a566p-33f,
       0x1.efd93p-36f,  0x1.532d92p-38f},
      // d^5
      {0x1.638d3ep-13f,  -0x1.cf3116p-7f,  -0x1.6c8826p-6f,  -0x1.754718p-6f,  -0x1.083c44p-6f,  -0x1.8161bap-8f,
       0x1.5e4204p-9f,   0x1.0018e2p-7f,   0x1.2598f8p-7f,   0x1.d1254cp-8f,   0x1.19fea4p-8f,   0x1.ba1752p-10f,
       0x1.ebf658p-21f,  -0x1.7fb12cp-11f, -0x1.ba87f2p-11f, -0x1.5f9916p-11f, -0x1.cbfffep-12f, -0x1.027b38p-12f,
       -0x1.035c6ap-13f, -0x1.d4a5ecp-15f, -0x1.8176a6p-16f, -0x1.228506p-17f, -0x1.9273eap-19f, -0x1.0141fcp-20f,
       -0x1.302a94p-22f, -0x1.4d53p-24f,   -0x1.531094p-26f, -0x1.40966ep-28f, -0x1.1a106ap-30f, -0x1.ce335ap-33f,
       -0x1.60f902p-35f, -0x1.f6d0fap-38f},
      // d^6
      {-0x1.572328p-7f, 0x1.57631p-9f,    -0x1.0a0272p-6f, 0x1.03421cp-6f,  -0x1.171ac8p-7f, 0x1.54b2c6p-5f,
       0x1.a009e4p-7f,  -0x1.084bp-7f,    0x1.c4cf8ep-10f, -0x1.cd439ap-8f, 0x1.6d3dd4p-12f, -0x1.8c468cp-11f,
       -0x1.25198p-10f, -0x1.fe53dep-13f, 0x1.b9a198p-15f, 0x1.c74536p-13f, 0x1.0b0518p-13f, 0x1.be52aep-14f,
       0x1.d0fep-15f,   0x1.03dea2p-15f,  0x1.d4bdcap-17f, 0x1.81c062p-18f, 0x1.1fd75cp-19f, 0x1.891d2cp-21f,
       0x1.ed191ap-23f, 0x1.1d667ep-24f,  0x1.312deep-26f, 0x1.2e0c7cp-28f, 0x1.15a8eep-30f, 0x1.d9a0dcp-33f,
       0x1.77d94cp-35f, 0x1.157e5p-37f},
  };
};

// a sigmoid(-a) = a / (1 + e^a), SiLU's negative side (silu(-a) = -a sigmoid(-a)): degree 4, w = 0.25.
struct SiluTable {
  static constexpr int kIntervals = 32;
  static constexpr int kDegree = 4;
  static constexpr float kWidth = 0.25f;
  static constexpr bool kSplitConstant = false;
  alignas(64) static constexpr float kCoefficients[5][32] = {
      // constant
      {0x0p+0f,        0x1.c054cep-4f, 0x1.829a06p-3f, 0x1.ecc812p-3f, 0x1.136562p-2f, 0x1.1d0e62p-2f, 0x1.1834a2p-2f,
       0x1.094cf2p-2f, 0x1.e84152p-3f, 0x1.b75ecep-3f, 0x1.8464d6p-3f, 0x1.526874p-3f, 0x1.236272p-3f, 0x1.f0e542p-4f,
       0x1.a4385cp-4f, 0x1.60eeb2p-4f, 0x1.26afa2p-4f, 0x1.e9a3a6p-5f, 0x1.9505ccp-5f, 0x1.4dc462p-5f, 0x1.1223ap-5f,
       0x1.c103acp-6f, 0x1.6ec4acp-6f, 0x1.2ae462p-6f, 0x1.e62332p-7f, 0x1.8a9862p-7f, 0x1.3fbd64p-7f, 0x1.02ad4ep-7f,
       0x1.a1f252p-8f, 0x1.5130ap-8f,  0x1.0fb3a6p-8f, 0x1.b55d04p-9f},
      // d^1
      {0x1p-1f,         0x1.815238p-2f,  0x1.0a47b6p-2f,  0x1.425b2ep-3f,  0x1.284336p-4f,  0x1.9e2524p-8f,
       -0x1.52481ep-5f, -0x1.29b166p-4f, -0x1.73da2ep-4f, -0x1.9466ecp-4f, -0x1.9725a6p-4f, -0x1.86089ep-4f,
       -0x1.68dfd8p-4f, -0x1.4575p-4f,   -0x1.1fd6f4p-4f, -0x1.f56a5ep-5f, -0x1.af6dbcp-5f, -0x1.6f8b3ep-5f,
       -0x1.369152p-5f, -0x1.04a332p-5f, -0x1.b2f4p-6f,   -0x1.6924d6p-6f, -0x1.2a971ep-6f, -0x1.ebecd8p-7f,
       -0x1.93e99cp-7f, -0x1.4ab322p-7f, -0x1.0e11bp-7f,  -0x1.b81a96p-8f, -0x1.65dbfp-8f,  -0x1.227112p-8f,
       -0x1.d6a63ap-9f, -0x1.7cbdb6p-9f},
      // d^2
      {-0x1.00001p-2f,  -0x1.f03fbcp-3f, -0x1.c3d22ep-3f, -0x1.82483p-3f,  -0x1.35a08cp-3f, -0x1.cf457ap-4f,
       -0x1.3fe33p-4f,  -0x1.8cd008p-5f, -0x1.9a14aap-6f, -0x1.fa22c6p-8f, 0x1.153c02p-8f,  0x1.842b4cp-7f,
       0x1.08cddcp-6f,  0x1.288718p-6f,  0x1.2dc9dp-6f,   0x1.2223fep-6f,  0x1.0c9094p-6f,  0x1.e3f974p-7f,
       0x1.ab7d42p-7f,  0x1.73c8ep-7f,   0x1.3f7ffcp-7f,  0x1.0fd6p-7f,    0x1.caf324p-8f,  0x1.80d05ep-8f,
       0x1.40e74p-8f,   0x1.0a4d8cp-8f,  0x1.b823ecp-9f,  0x1.6a685ap-9f,  0x1.297f4p-9f,   0x1.e710b2p-10f,
       0x1.8dade8p-10f, 0x1.43f818p-10f},
      // d^3
      {0x1.4289b4p-17f,  0x1.49e5c8p-6f,   0x1.2cbc5ep-5f,   0x1.838656p-5f,   0x1.a3b16cp-5f,   0x1.9425d6p-5f,
       0x1.63b804p-5f,   0x1.22552p-5f,    0x1.bafa7p-6f,    0x1.3c7e5ep-6f,   0x1.a45ddep-7f,   0x1.fbd86cp-8f,
       0x1.05975cp-8f,   0x1.669cc4p-10f,  -0x1.7e1c8cp-12f, -0x1.7578cap-10f, -0x1.074a9cp-9f,  -0x1.28cf6cp-9f,
       -0x1.2dea9ap-9f,  -0x1.2188bap-9f,  -0x1.0b51a4p-9f,  -0x1.e06bc6p-10f, -0x1.a76dcep-10f, -0x1.6f8898p-10f,
       -0x1.3b5e7ep-10f, -0x1.0c04bcp-10f, -0x1.c40c1ap-11f, -0x1.7ab702p-11f, -0x1.3ba3a4p-11f, -0x1.05cdbep-11f,
       -0x1.b09096p-12f, -0x1.640caap-12f},
      // d^4
      {0x1.53caaep-6f,  0x1.36d662p-6f,  0x1.c868ccp-7f,   0x1.dc5e92p-8f,   0x1.b9c4dcp-11f,  -0x1.14084ep-8f,
       -0x1.dfea0cp-8f, -0x1.1db286p-7f, -0x1.0f8444p-7f,  -0x1.d5c0eap-8f,  -0x1.78debep-8f,  -0x1.1e105p-8f,
       -0x1.a6eeb8p-9f, -0x1.144e96p-9f, -0x1.580b36p-10f, -0x1.9dbd92p-11f, -0x1.9c6978p-12f, -0x1.a388a4p-14f,
       0x1.4cf4cep-16f, 0x1.59eb82p-13f, 0x1.3c5cf6p-13f,  0x1.ed9be2p-13f,  0x1.c6a86p-13f,   0x1.e44768p-13f,
       0x1.7a3f48p-13f, 0x1.4da19ep-13f, 0x1.35fdc4p-13f,  0x1.22ff6ep-13f,  0x1.d78a3cp-14f,  0x1.75da3p-14f,
       0x1.4a787ap-14f, 0x1.1f578ep-14f},
  };
};

// Phi(-a) for AVX2 (NormalCdfTable's first 16 intervals, up to the last bits of the fit): degree 6, w = 0.1875.
struct NormalCdfTableAvx2 {
  static constexpr int kIntervals = 16;
  static constexpr int kDegree = 6;
  static constexpr float kWidth = 0.1875f;
  static constexpr bool kSplitConstant = true;
  alignas(64) static constexpr float kCoefficients[8][16] = {
      // constant's high part
      {0x1p-1f, 0x1.b3d97cp-2f, 0x1.6a527ap-2f, 0x1.25c5e4p-2f, 0x1.d022p-3f, 0x1.64dd8ep-3f, 0x1.0ad7dap-3f,
       0x1.83cab6p-4f, 0x1.11a46ep-4f, 0x1.76d04ep-5f, 0x1.f20394p-6f, 0x1.40cccep-6f, 0x1.90925p-7f, 0x1.e49cecp-8f,
       0x1.1bee6cp-8f, 0x1.42297ap-9f},
      // constant's low part
      {0x1.04p-46f, -0x1.b49888p-27f, -0x1.fc3014p-27f, -0x1.e25e78p-29f, 0x1.5ad17p-29f, 0x1.4d50b8p-28f,
       0x1.f38be2p-32f, 0x1.0031fap-30f, -0x1.da6718p-30f, 0x1.713122p-31f, 0x1.d97d48p-31f, -0x1.fe76d4p-32f,
       -0x1.bc6f0ep-32f, -0x1.2b5bb6p-34f, 0x1.f307bcp-38f, 0x1.500354p-35f},
      // d^1
      {-0x1.988454p-2f, -0x1.91661p-2f, -0x1.7cc794p-2f, -0x1.5cbdcp-2f, -0x1.345d5ep-2f, -0x1.073e62p-2f,
       -0x1.b1ec62p-3f, -0x1.594762p-3f, -0x1.094086p-3f, -0x1.8977c8p-4f, -0x1.19bfa4p-4f, -0x1.858fbcp-5f,
       -0x1.0402ep-5f, -0x1.4f18bcp-6f, -0x1.a0f22cp-7f, -0x1.f4dda6p-8f},
      // d^2
      {0x1.bf331p-20f, 0x1.2d0c8cp-5f, 0x1.1d95acp-4f, 0x1.885576p-4f, 0x1.ce8c0ap-4f, 0x1.ed94f8p-4f, 0x1.e829eep-4f,
       0x1.c52dbp-4f, 0x1.8de0cap-4f, 0x1.4bfd1p-4f, 0x1.0823aap-4f, 0x1.91bc38p-5f, 0x1.24833cp-5f, 0x1.986626p-6f,
       0x1.119eeep-6f, 0x1.602bd8p-7f},
      // d^3
      {0x1.1004a4p-4f, 0x1.0231c2p-4f, 0x1.b442aep-5f, 0x1.3dd7dcp-5f, 0x1.67a782p-6f, 0x1.5412f2p-8f, -0x1.335cdp-7f,
       -0x1.4cb322p-6f, -0x1.ba0e38p-6f, -0x1.e4aefcp-6f, -0x1.d87f54p-6f, -0x1.a68b9ep-6f, -0x1.6018acp-6f,
       -0x1.13f848p-6f, -0x1.995854p-7f, -0x1.206c0ap-7f},
      // d^4
      {0x1.b4ffc2p-10f, -0x1.298806p-7f, -0x1.1018fp-6f, -0x1.5ee57cp-6f, -0x1.77b15cp-6f, -0x1.5cfdf8p-6f,
       -0x1.1a36fcp-6f, -0x1.81de2ep-7f, -0x1.8e176cp-8f, -0x1.0d180ap-10f, 0x1.6af23ap-9f, 0x1.4ff826p-8f,
       0x1.92305p-8f, 0x1.905f0ep-8f, 0x1.62d484p-8f, 0x1.20355ep-8f},
      // d^5
      {-0x1.a72326p-6f, -0x1.2c74b2p-7f, -0x1.96d2f4p-8f, -0x1.a2ef0cp-9f, 0x1.701686p-11f, 0x1.9ba018p-9f,
       0x1.59b1d6p-8f, 0x1.94ee12p-8f, 0x1.7550dp-8f, 0x1.40d2d6p-8f, 0x1.a1c88ap-9f, 0x1.def932p-10f, 0x1.dac75cp-12f,
       -0x1.f2999ep-12f, -0x1.fb5d38p-11f, -0x1.2dc9a6p-10f},
      // d^6
      {0x1.cce988p-5f, 0x1.91221p-10f, 0x1.12551ep-9f, 0x1.78b7f2p-9f, 0x1.334684p-9f, 0x1.3cae9ap-9f, 0x1.50a10cp-10f,
       0x1.fc1092p-14f, -0x1.7ce568p-12f, -0x1.766478p-10f, -0x1.3ec474p-10f, -0x1.81d756p-10f, -0x1.fa99a8p-11f,
       -0x1.261d28p-11f, -0x1.1fdf6ep-12f, -0x1.af3ae6p-15f},
  };
};

// a Phi(-a), GELU's negative side, for AVX2 (GeluTable's first 16 intervals): degree 6, w = 0.25.
struct GeluTableAvx2 {
  static constexpr int kIntervals = 16;
  static constexpr int kDegree = 6;
  static constexpr float kWidth = 0.25f;
  static constexpr bool kSplitConstant = false;
  alignas(64) static constexpr float kCoefficients[7][16] = {
      // constant
      {0x0p+0f, 0x1.9aecbap-4f, 0x1.3bf144p-3f, 0x1.5c198p-3f, 0x1.44ed0cp-3f, 0x1.0e76a2p-3f, 0x1.9a76a4p-4f,
       0x1.1f24ep-4f, 0x1.74bcf8p-5f, 0x1.c2a49ap-6f, 0x1.fcb21ep-7f, 0x1.0c832ep-7f, 0x1.096698p-8f, 0x1.eb9b5cp-10f,
       0x1.aae05p-11f, 0x1.5babcp-12f},
      // d^1
      {0x1p-1f, 0x1.37f00cp-2f, 0x1.0f5eb8p-3f, 0x1.95f1dep-11f, -0x1.55429ap-4f, -0x1.f66bfcp-4f, -0x1.050e92p-3f,
       -0x1.c65a8p-4f, -0x1.5d1c06p-4f, -0x1.e4e1e4p-5f, -0x1.341c2ap-5f, -0x1.68e62cp-6f, -0x1.876f5ap-7f,
       -0x1.8a5ae8p-8f, -0x1.71da9p-9f, -0x1.437006p-10f},
      // d^2
      {-0x1.988454p-2f, -0x1.7f9296p-2f, -0x1.3b73e6p-2f, -0x1.bb4526p-3f, -0x1.ef90b6p-4f, -0x1.4742b2p-5f,
       0x1.0945a6p-6f, 0x1.777718p-5f, 0x1.ba4bfep-5f, 0x1.8e2278p-5f, 0x1.3122dp-5f, 0x1.9e60a2p-6f, 0x1.fc4712p-7f,
       0x1.1ca6aap-7f, 0x1.251c16p-8f, 0x1.16bd08p-9f},
      // d^3
      {0x1.c06ab6p-21f, 0x1.03da18p-4f, 0x1.c2a232p-4f, 0x1.09002cp-3f, 0x1.ef8e4ep-4f, 0x1.7be48ep-4f, 0x1.d03304p-5f,
       0x1.828a6ep-6f, 0x1.212974p-21f, -0x1.9e5d78p-7f, -0x1.0d3d9ep-6f, -0x1.e68c5p-7f, -0x1.6b0e3ap-7f,
       -0x1.d8afa2p-8f, -0x1.133d6p-8f, -0x1.22a7b6p-9f},
      // d^4
      {0x1.104436p-4f, 0x1.d444f6p-5f, 0x1.18a59ep-5f, 0x1.21e614p-8f, -0x1.4470f8p-6f, -0x1.1f988cp-5f,
       -0x1.293f38p-5f, -0x1.d6645ap-6f, -0x1.27c384p-6f, -0x1.ee5008p-8f, -0x1.273b3ap-11f, 0x1.977e74p-9f,
       0x1.0adep-8f, 0x1.cd5138p-9f, 0x1.4592f4p-9f, 0x1.8d7018p-10f},
      // d^5
      {0x1.638d3ep-13f, -0x1.cf3116p-7f, -0x1.6c8826p-6f, -0x1.754718p-6f, -0x1.083c44p-6f, -0x1.8161bap-8f,
       0x1.5e4204p-9f, 0x1.0018e2p-7f, 0x1.2598f8p-7f, 0x1.d1254cp-8f, 0x1.19fea4p-8f, 0x1.ba1752p-10f, 0x1.ebf658p-21f,
       -0x1.7fb12cp-11f, -0x1.ba87f2p-11f, -0x1.5f9916p-11f},
      // d^6
      {-0x1.572328p-7f, 0x1.57631p-9f, -0x1.0a0272p-6f, 0x1.03421cp-6f, -0x1.171ac8p-7f, 0x1.54b2c6p-5f, 0x1.a009e4p-7f,
       -0x1.084bp-7f, 0x1.c4cf8ep-10f, -0x1.cd439ap-8f, 0x1.6d3dd4p-12f, -0x1.8c468cp-11f, -0x1.25198p-10f,
       -0x1.fe53dep-13f, 0x1.b9a198p-15f, 0x1.c74536p-13f},
  };
};

// a sigmoid(-a), SiLU's negative side, for AVX2: degree 7, w = 1.0.
struct SiluTableAvx2 {
  static constexpr int kIntervals = 8;
  static constexpr int kDegree = 7;
  static constexpr float kWidth = 1.0f;
  static constexpr bool kSplitConstant = false;
  alignas(64) static constexpr float kCoefficients[8][8] = {
      // constant
      {0x0p+0f, 0x1.136562p-2f, 0x1.e84152p-3f, 0x1.236272p-3f, 0x1.26afa2p-4f, 0x1.1223ap-5f, 0x1.e62332p-7f,
       0x1.a1f252p-8f},
      // d^1
      {0x1p-1f, 0x1.2842f8p-4f, -0x1.73da2ep-4f, -0x1.68dfd8p-4f, -0x1.af6db4p-5f, -0x1.b2f4p-6f, -0x1.93e99cp-7f,
       -0x1.65dbfp-8f},
      // d^2
      {-0x1.000002p-2f, -0x1.35a002p-3f, -0x1.9a1a3ap-6f, 0x1.08c8d6p-6f, 0x1.0c90c2p-6f, 0x1.3f7aa4p-7f, 0x1.40e4dp-8f,
       0x1.297fe2p-9f},
      // d^3
      {0x1.27e3aap-20f, 0x1.a461fp-5f, 0x1.bade2ep-6f, 0x1.04d398p-8f, -0x1.07ebfep-9f, -0x1.0b55a4p-9f,
       -0x1.3b5334p-10f, -0x1.3b89ep-11f},
      // d^4
      {0x1.551be6p-6f, 0x1.8d171p-11f, -0x1.0d1988p-7f, -0x1.9d4e58p-9f, -0x1.9e423ap-12f, 0x1.93b0bep-13f,
       0x1.8ed088p-13f, 0x1.d2d34ap-14f},
      // d^5
      {0x1.4b295ep-14f, -0x1.353452p-8f, 0x1.315a5p-11f, 0x1.dc2f34p-11f, 0x1.10b3aap-12f, 0x1.e79db6p-16f,
       -0x1.f2a1cep-17f, -0x1.ddddd2p-17f},
      // d^6
      {-0x1.2f9ffep-9f, 0x1.83d348p-11f, 0x1.d36f6p-12f, -0x1.c683f8p-14f, -0x1.29564p-14f, -0x1.ce8f76p-17f,
       -0x1.0d5bf2p-20f, 0x1.a134d6p-21f},
      // d^7
      {0x1.6af4fep-12f, 0x1.1f4dp-12f, -0x1.5fb23ap-13f, -0x1.31966p-16f, 0x1.8fdbfap-17f, 0x1.077754p-19f,
       0x1.842076p-22f, 0x1.79d164p-23f},
  };
};

} // namespace uaccel::math
