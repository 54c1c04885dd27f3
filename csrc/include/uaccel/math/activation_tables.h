#pragma once
// Written by tools/fit_activation_tables.py; do not edit. Lower tails F(-a), 0 <= a <= (kIntervals - 1/2) w,
// each in interval k (a = k w + d, |d| <= w/2) the polynomial sum_j kCoefficients[j][k] d^j, its constant
// term split in two floats (rows 0 and 1); row j >= 2 holds d^(j-1)'s coefficient. Relative minimax fits.

namespace uaccel::math {

// Phi(-a), the standard normal distribution's lower tail (GELU): degree 6, w = 0.1875.
struct NormalCdfTable {
  static constexpr int kIntervals = 32;
  static constexpr int kDegree = 6;
  static constexpr float kWidth = 0.1875f;
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

// sigmoid(-a) = 1 / (1 + e^a), the logistic distribution's lower tail (SiLU): degree 5, w = 0.5.
struct SigmoidTable {
  static constexpr int kIntervals = 32;
  static constexpr int kDegree = 5;
  static constexpr float kWidth = 0.5f;
  alignas(64) static constexpr float kCoefficients[7][32] = {
      // constant's high part
      {0x1p-1f,         0x1.829a06p-2f,  0x1.136562p-2f,  0x1.759b84p-3f,  0x1.e84152p-4f,  0x1.36b71p-4f,
       0x1.848344p-5f,  0x1.e04068p-6f,  0x1.26afa2p-6f,  0x1.680528p-7f,  0x1.b69f68p-8f,  0x1.0abd94p-8f,
       0x1.441778p-9f,  0x1.8986a4p-10f, 0x1.dda73ap-11f, 0x1.21d0b2p-11f, 0x1.5fa3dep-12f, 0x1.aa9e08p-13f,
       0x1.02c6f6p-13f, 0x1.39ed86p-14f, 0x1.7cd32ep-15f, 0x1.cdf8e4p-16f, 0x1.18341p-16f,  0x1.53e7f6p-17f,
       0x1.9c541ep-18f, 0x1.f42e5ap-19f, 0x1.2f6028p-19f, 0x1.700376p-20f, 0x1.be6c58p-21f, 0x1.0ec4fcp-21f,
       0x1.4875c4p-22f, 0x1.8e7134p-23f},
      // constant's low part
      {-0x1.22f74p-35f,  -0x1.317788p-28f, -0x1.02c452p-27f, -0x1.4ffb2ep-28f, 0x1.9aa9c2p-30f,  0x1.c1978ap-29f,
       -0x1.dd6b96p-31f, -0x1.e54804p-36f, -0x1.97c974p-34f, -0x1.075d6ap-33f, 0x1.34f642p-37f,  0x1.10bb16p-33f,
       -0x1.35a4fp-34f,  -0x1.df5824p-35f, -0x1.f46e74p-36f, -0x1.c97216p-37f, -0x1.fd4e1cp-39f, -0x1.6a118ep-38f,
       -0x1.aaa4eep-39f, 0x1.32a306p-39f,  0x1.17e994p-40f,  0x1.d256ep-41f,   -0x1.0ea23p-42f,  0x1.1eab1p-49f,
       -0x1.a916ap-49f,  0x1.7afd98p-46f,  -0x1.f7dadap-44f, 0x1.0b7d7ep-45f,  -0x1.0e9eb6p-48f, -0x1.d7c662p-46f,
       -0x1.9918dp-49f,  -0x1.063242p-48f},
      // d^1
      {-0x1.fffffep-3f,  -0x1.e1499ep-3f,  -0x1.92a946p-3f,  -0x1.3173b2p-3f,  -0x1.ae0dc2p-4f,  -0x1.1f2514p-4f,
       -0x1.721654p-5f,  -0x1.d22ca2p-6f,  -0x1.2162c2p-6f,  -0x1.64108ap-7f,  -0x1.b3afe2p-8f,  -0x1.09a7a6p-8f,
       -0x1.434a5p-9f,   -0x1.88ef66p-10f, -0x1.dd37dp-11f,  -0x1.21a7aep-11f, -0x1.5f85acp-12f, -0x1.aa87cep-13f,
       -0x1.02bec8p-13f, -0x1.39e782p-14f, -0x1.7ccecp-15f,  -0x1.cdf5a2p-16f, -0x1.1832dcp-16f, -0x1.53e712p-17f,
       -0x1.9c5376p-18f, -0x1.f42ddep-19f, -0x1.2f5ff8p-19f, -0x1.700354p-20f, -0x1.be6c3ep-21f, -0x1.0ec4f2p-21f,
       -0x1.4875bcp-22f, -0x1.8e712ep-23f},
      // d^2
      {-0x1.43a8a4p-21f, 0x1.d77c08p-6f,  0x1.74254ep-5f,  0x1.8403cap-5f,  0x1.478778p-5f, 0x1.e72a42p-6f,
       0x1.4efc62p-6f,   0x1.b6d8aap-7f,  0x1.16f9cep-7f,  0x1.5c3d58p-8f,  0x1.adda7ap-9f, 0x1.077dbcp-9f,
       0x1.41b098p-10f,  0x1.87c0ccp-11f, 0x1.dc5876p-12f, 0x1.21554p-12f,  0x1.5f48cp-13f, 0x1.aa5aaep-14f,
       0x1.02ae02p-14f,  0x1.39daf8p-15f, 0x1.7cc544p-16f, 0x1.cdee5ep-17f, 0x1.183p-17f,   0x1.53e4c6p-18f,
       0x1.9c517ep-19f,  0x1.f42c16p-20f, 0x1.2f5f24p-20f, 0x1.700276p-21f, 0x1.be6b5p-22f, 0x1.0ec472p-22f,
       0x1.487524p-23f,  0x1.8e708p-24f},
      // d^3
      {0x1.55780ep-6f,   0x1.071956p-6f,   0x1.81d582p-8f,   -0x1.5678bcp-9f,  -0x1.a857fp-8f,   -0x1.bba10ap-8f,
       -0x1.67b00ap-8f,  -0x1.01ba0ap-8f,  -0x1.58f5dep-9f,  -0x1.bbce14p-10f, -0x1.16df9ap-10f, -0x1.5997d4p-11f,
       -0x1.a8aef6p-12f, -0x1.039adp-12f,  -0x1.3c69cep-13f, -0x1.80edfep-14f, -0x1.d3c308p-15f, -0x1.1c02e4p-15f,
       -0x1.58be3cp-16f, -0x1.a25b0cp-17f, -0x1.fb9dp-18f,   -0x1.33ed04p-18f, -0x1.759104p-19f, -0x1.c5301cp-20f,
       -0x1.12e108p-20f, -0x1.4d7366p-21f, -0x1.948144p-22f, -0x1.eab018p-23f, -0x1.299e2ep-23f, -0x1.6906c4p-24f,
       -0x1.b5f3d2p-25f, -0x1.09a14cp-25f},
      // d^4
      {-0x1.92b4ecp-15f, -0x1.1a9fe6p-8f, -0x1.4ec01ap-8f, -0x1.987a18p-9f, -0x1.cd748p-11f, 0x1.90695cp-12f,
       0x1.96380cp-11f,  0x1.808b36p-11f, 0x1.252eep-11f,  0x1.945b38p-12f, 0x1.08449ap-12f, 0x1.4f136cp-13f,
       0x1.a165bp-14f,   0x1.013ddap-14f, 0x1.3b1234p-15f, 0x1.8069bap-16f, 0x1.d3fabep-17f, 0x1.1c7456p-17f,
       0x1.5981bcp-18f,  0x1.a3705p-19f,  0x1.fd1074p-20f, 0x1.34d79ep-20f, 0x1.76b7e6p-21f, 0x1.c6942p-22f,
       0x1.13be9ap-22f,  0x1.4e838cp-23f, 0x1.95c5c4p-24f, 0x1.ec4316p-25f, 0x1.2a932p-25f,  0x1.6a2af6p-26f,
       0x1.b75c28p-27f,  0x1.0a79b4p-27f},
      // d^5
      {-0x1.02f9ep-9f,   -0x1.23728ep-10f, 0x1.b916e2p-12f,  0x1.03fa98p-10f,  0x1.78da86p-11f,  0x1.396744p-12f,
       0x1.5ac57cp-15f,  -0x1.dfd04ap-15f, -0x1.374e72p-14f, -0x1.0454c2p-14f, -0x1.75ed7cp-15f, -0x1.f2670ap-16f,
       -0x1.3e57ep-16f,  -0x1.8f673ap-17f, -0x1.edc5c4p-18f, -0x1.2f839p-18f,  -0x1.722c34p-19f, -0x1.c31928p-20f,
       -0x1.12723p-20f,  -0x1.4d9bf8p-21f, -0x1.94b776p-22f, -0x1.eb85b8p-23f, -0x1.2a13d8p-23f, -0x1.68e7ccp-24f,
       -0x1.b67e36p-25f, -0x1.0a18aap-25f, -0x1.4236acp-26f, -0x1.879bd2p-27f, -0x1.db43c4p-28f, -0x1.20af94p-28f,
       -0x1.5d9418p-29f, -0x1.a889b2p-30f},
  };
};

} // namespace uaccel::math
